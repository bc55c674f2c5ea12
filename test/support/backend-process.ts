import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import type { HttpAdapterName } from './create-app.js';
import { freePort } from './redis-server.js';

/**
 * The realistic backend (test/support/backend-app.ts) in a process of its own, run from source: it brings
 * `@nestjs/throttler`, which is CommonJS requiring the ESM-only Nest 12, something Node loads and Jest's module
 * sandbox does not. The test reads what the app's enhancers saw from the app's `/api/_record` route.
 */
export const JWT_SECRET = 'backend-test-secret-of-32-bytes!';

const REGISTER = fileURLToPath(new URL('./ts-register.mjs', import.meta.url));
const MAIN = fileURLToPath(new URL('./backend-main.ts', import.meta.url));
export const BACKEND_STDIO = fileURLToPath(new URL('./backend-stdio.ts', import.meta.url));
export const TS_REGISTER = REGISTER;

export interface BackendRecordSnapshot {
  intercepted: string[];
  throttled: string[];
  received: Record<string, unknown>[];
  logs: Array<{ level: string; message: string; stack?: string }>;
}

export interface BackendProcessOptions {
  adapter: HttpAdapterName;
  /** Nest versioning of the app: URI with defaultVersion '1' unless said otherwise. */
  versioning?: 'uri' | 'uri-no-default' | 'header' | 'media-type' | 'none';
  /** The MCP route's `http.version`. */
  mcpVersion?: string;
  /** Mark the MCP route `@Public()` and `@SkipThrottle()` through `http.routeDecorators`. */
  publicRoute?: boolean;
}

export async function tokenFor(sub: string): Promise<string> {
  return new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

export class BackendProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  static async start(options: BackendProcessOptions): Promise<BackendProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', REGISTER, MAIN], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        PORT: String(port),
        BACKEND_ADAPTER: options.adapter,
        BACKEND_VERSIONING: options.versioning ?? 'uri',
        BACKEND_MCP_VERSION: options.mcpVersion ?? '',
        BACKEND_PUBLIC_ROUTE: options.publicRoute ? '1' : '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the backend exited with ${code} during start-up: ${output}`)));
    });
    return new BackendProcess(child, `http://127.0.0.1:${port}`);
  }

  /** What the app's enhancers and logger saw since the last `clear`. */
  async record(): Promise<BackendRecordSnapshot> {
    return (await fetch(`${this.origin}/api/_record`)).json() as Promise<BackendRecordSnapshot>;
  }

  async clear(): Promise<void> {
    await fetch(`${this.origin}/api/_record`, { method: 'DELETE' });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
