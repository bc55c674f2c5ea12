import { SetMetadata } from '@nestjs/common';
import { checkRequiredScopes } from '../../server/access/required-scopes.js';

/** The metadata key under which `@RequireScopes` stores its scopes (on the method, or on the class). */
export const MCP_REQUIRED_SCOPES = 'mcp:required-scopes';

/**
 * Declares the OAuth scopes a tool, resource or prompt handler needs. A caller without all of them does not
 * see it in lists and gets 403 `insufficient_scope` when it calls it. On a class it applies to every handler
 * of the class, together with the handler's own.
 *
 * ```ts
 * @Tool({ name: 'write_file', ... })
 * @RequireScopes('files:write')
 * writeFile(args: WriteFileArgs) { ... }
 * ```
 */
export const RequireScopes = (...scopes: string[]): ClassDecorator & MethodDecorator =>
  SetMetadata(MCP_REQUIRED_SCOPES, checkRequiredScopes('@RequireScopes()', scopes) ?? []);

/**
 * The scopes `@RequireScopes` declared for a handler: those of its class and its own, or undefined when none.
 * This is what a registration's `requiredScopes` should be set to.
 */
export function getRequiredScopes(handler: Function, target?: Function): string[] | undefined {
  const read = (on: Function | undefined): string[] =>
    on ? ((Reflect.getMetadata(MCP_REQUIRED_SCOPES, on) as string[] | undefined) ?? []) : [];
  const scopes = [...new Set([...read(target), ...read(handler)])];
  return scopes.length > 0 ? scopes : undefined;
}
