import { Injectable } from '@nestjs/common';
import { Args, McpContext, McpCtx, Tool } from 'nestjs-mcp';
import { ClsService } from 'nestjs-cls';
import { CreateNoteDto } from './create-note.dto';
import { NotesService } from './notes.service';

@Injectable()
export class NotesTools {
  constructor(
    private readonly notes: NotesService,
    private readonly cls: ClsService,
  ) {}

  @Tool({ name: 'add_note', description: 'Saves a note', inputSchema: CreateNoteDto })
  async add(@Args() dto: CreateNoteDto, @McpCtx() ctx: McpContext) {
    const author = (ctx.httpRequest as { user?: { sub: string } } | undefined)?.user?.sub ?? 'stdio';
    const note = await this.notes.create(dto.text, author);
    return { id: note.id, text: note.text, author: note.author, requestId: this.cls.getId() ?? null };
  }

  @Tool({ name: 'request_id', description: "nestjs-cls's id of this request" })
  requestId() {
    return { requestId: this.cls.getId() ?? null };
  }
}
