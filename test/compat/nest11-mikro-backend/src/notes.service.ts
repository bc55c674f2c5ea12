import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Note } from './note.entity';

@Injectable()
export class NotesService implements OnModuleInit {
  // The global EntityManager, as MikroORM's Nest docs inject it: it works inside the request context that
  // MikroORM's middleware opens, and refuses context-specific work outside one.
  constructor(private readonly em: EntityManager) {}

  async onModuleInit(): Promise<void> {
    await this.em
      .getConnection()
      .execute(
        'CREATE TABLE IF NOT EXISTS compat_mikro_backend_notes (id serial PRIMARY KEY, text text NOT NULL, author text NOT NULL)',
      );
  }

  async create(text: string, author: string): Promise<Note> {
    const note = this.em.create(Note, { text, author });
    await this.em.flush();
    return note;
  }

  list(author: string): Promise<Note[]> {
    return this.em.find(Note, { author }, { orderBy: { id: 'ASC' } });
  }
}
