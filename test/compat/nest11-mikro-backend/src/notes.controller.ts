import { Body, Controller, Get, Post, Req } from '@nestjs/common';
import { RouteTool } from 'nestjs-mcp';
import { Roles, User } from './auth';
import { CreateNoteDto } from './create-note.dto';
import { NotesService } from './notes.service';

@Controller('notes')
export class NotesController {
  constructor(private readonly notes: NotesService) {}

  @RouteTool({ name: 'list_notes', description: "The caller's notes" })
  @Roles('reader')
  @Get()
  async list(@Req() req: { user: User }) {
    return { notes: await this.notes.list(req.user.sub) };
  }

  @Roles('writer')
  @Post()
  create(@Body() dto: CreateNoteDto, @Req() req: { user: User }) {
    return this.notes.create(dto.text, req.user.sub);
  }

  @Roles('admin')
  @Get('all')
  all() {
    return [];
  }
}
