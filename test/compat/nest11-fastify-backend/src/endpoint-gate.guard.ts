import { CanActivate, ExecutionContext, ForbiddenException, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';

const GATE_KEY = 'endpoint-gate';

/** Names the gate a route sits behind; the guard below reads it. */
export const Gate = (name: string) => SetMetadata(GATE_KEY, name);

/**
 * An operator's switch in front of a route: `x-gate: closed` refuses it. Given to the MCP endpoint through
 * `http.routeDecorators`, as an app fences its own controllers.
 */
@Injectable()
export class EndpointGateGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const gate = this.reflector.get<string | undefined>(GATE_KEY, context.getClass());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (gate && request.headers['x-gate'] === 'closed') throw new ForbiddenException(`The ${gate} gate is closed`);
    return true;
  }
}
