import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { IS_PUBLIC_KEY } from './public.decorator';

export const COOKIE_SECRET = 'compat-fastify-backend-cookie-secret';

export interface SessionUser {
  username: string;
}

/** The app's session check, as an APP_GUARD: a signed `session` cookie, unless the route is @Public(). */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [context.getHandler(), context.getClass()]))
      return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: SessionUser }>();
    const cookie = request.cookies?.session;
    const unsigned = cookie ? request.unsignCookie(cookie) : undefined;
    if (!unsigned?.valid || !unsigned.value) throw new UnauthorizedException('No session');
    request.user = { username: unsigned.value };
    return true;
  }
}
