import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';

/** An app's own guard, as simple as one gets: `x-user: <name>` becomes `request.user = { id }`; no header, 403. */
@Injectable()
export class HeaderUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    req.user = { id: req.headers['x-user'] };
    return typeof req.headers['x-user'] === 'string';
  }
}
