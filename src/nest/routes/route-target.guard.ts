import { HttpException, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { inProcessTarget } from '../../http/in-process-request.js';
import type { RouteTarget } from './route-tool-call.js';

/** HTTP 421: the request reached a handler that is not the one it was sent for. */
const MISDIRECTED = 421;

/**
 * A route tool runs its own route or nothing. Its call is an HTTP request the app's router dispatches, and a
 * path argument can lead that router elsewhere (`stats` to a static `GET /orders/stats` before `/orders/:id`, a
 * catch-all registered first): this guard, ahead of every controller's own guards (`routeTargetGuardProvider`),
 * lets a route tool's request reach only the handler it was sent for. Any other request passes after one property
 * read.
 */
@Injectable()
export class RouteTargetGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const target = inProcessTarget(context.switchToHttp().getRequest<{ socket?: unknown }>().socket) as
      RouteTarget | undefined;
    if (target === undefined) return true;
    if (context.getHandler() === target.handler && context.getClass() === target.controller) {
      target.reached = true;
      return true;
    }
    target.strayed = true;
    throw new HttpException('Misdirected request: this route is not the one the route tool was sent to', MISDIRECTED);
  }
}
