import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from './public.decorator';

@Controller()
export class AppController {
  @Public()
  @Get()
  getHello(): string {
    return 'Hello World!';
  }

  @Public()
  @Post('auth/login')
  login(@Body() body: { username: string }, @Res({ passthrough: true }) reply: FastifyReply) {
    reply.setCookie('session', body.username, { signed: true, path: '/', httpOnly: true });
    return { ok: true };
  }
}
