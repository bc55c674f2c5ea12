import 'reflect-metadata';
import { bootstrapStdio } from '../../src/index.js';
import { AppModule } from './app.module.js';

/**
 * The same app as `main.ts`, launched by a desktop client as a child process: MCP on stdin/stdout, logs on
 * stderr, no HTTP server.
 */
void bootstrapStdio(AppModule);
