import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { Args, McpContext, McpCtx, ResourceTemplate, ResourceUri, Tool } from 'nestjs-mcp';
import { z } from 'zod';
import { TenantCounter } from './tenant';

@Injectable()
export class NotesTools {
  constructor(private readonly counter: TenantCounter) {}

  @Tool({ name: 'whoami', description: 'Who the session says is calling' })
  whoami(@McpCtx() ctx: McpContext) {
    return { user: (ctx.httpRequest as { user?: unknown } | undefined)?.user ?? null };
  }

  @Tool({ name: 'tenant_count', description: "Counts this tenant's calls, in its durable provider" })
  tenantCount() {
    return this.counter.next();
  }

  @Tool({ name: 'delete_note', description: 'Only admins delete notes', inputSchema: z.object({ id: z.string() }) })
  deleteNote(@Args('id') id: string): string {
    throw new ForbiddenException(`Only admins may delete note ${id}`);
  }

  @ResourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', mimeType: 'text/plain' })
  note(@ResourceUri() uri: string) {
    if (uri !== 'notes://welcome') throw new NotFoundException(`No note at ${uri}`);
    return 'Welcome!';
  }
}
