import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { bootstrapStdio } from '../../src/index.js';
import { configureStdioContextApp, StdioContextModule } from './stdio-context-app.js';

// `http`: the app as main.ts runs it, on 127.0.0.1 and a free port (printed as `PORT n`); `stdio`: the same
// module and set-up on stdin/stdout, sending `STDIO_CONTEXT_TOKEN` (when set) as its bearer token.
if (process.argv[2] === 'http') {
  const app = configureStdioContextApp(await NestFactory.create(StdioContextModule, { logger: ['error'] }));
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`PORT ${(app.getHttpServer().address() as { port: number }).port}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => void app.close());
} else {
  const token = process.env.STDIO_CONTEXT_TOKEN;
  await bootstrapStdio(StdioContextModule, {
    configure: configureStdioContextApp,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(process.env.STDIO_CONTEXT_DENY ? { 'x-deny': '1' } : {}),
    },
  });
}
