import { MikroOrmModule } from '@mikro-orm/nestjs';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { ClsModule } from 'nestjs-cls';
import { McpModule } from 'nestjs-mcp';
import { AuthController } from './auth.controller';
import { AuthGuard, JWT_SECRET, RolesGuard } from './auth';
import { Note } from './note.entity';
import { NotesController } from './notes.controller';
import { NotesService } from './notes.service';
import { NotesTools } from './notes.tools';

@Module({
  imports: [
    MikroOrmModule.forRoot({
      driver: PostgreSqlDriver,
      host: process.env.PGHOST ?? '127.0.0.1',
      user: process.env.PGUSER ?? 'postgres',
      dbName: 'test',
      entities: [Note],
    }),
    ClsModule.forRoot({ global: true, middleware: { mount: true, generateId: true } }),
    JwtModule.register({ global: true, secret: JWT_SECRET, signOptions: { expiresIn: '15m' } }),
    McpModule.forRoot({ name: 'notes', version: '1.0.0' }),
  ],
  controllers: [AuthController, NotesController],
  providers: [
    NotesService,
    NotesTools,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RolesGuard },
  ],
})
export class AppModule {}
