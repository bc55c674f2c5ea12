import { Catch, type ExceptionFilter } from '@nestjs/common';
import { McpError } from '../../protocol/mcp-error.js';
import { InputRequired } from '../../server/input-required.js';
import { ToolError } from '../../server/errors/tool-error.js';

/**
 * Lets the kernel's control-flow signals through a tool's exception filters: an `InputRequired` (the
 * input_required round trip), an `McpError` (a JSON-RPC error) or a `ToolError` (a message meant for the
 * client verbatim) must reach the kernel untouched, not be turned into another result by a catch-all filter,
 * nor be logged by Nest as an unhandled error.
 */
@Catch(InputRequired, McpError, ToolError)
export class McpSignalFilter implements ExceptionFilter {
  catch(signal: InputRequired | McpError | ToolError): never {
    throw signal;
  }
}
