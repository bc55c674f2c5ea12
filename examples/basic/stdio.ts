import 'reflect-metadata';
import { bootstrapStdio } from '../../src/index.js';
import { AppModule } from './app.module.js';

/**
 * The same app as `main.ts`, launched by a desktop client as a child process: MCP on stdin/stdout, logs on
 * stderr. `http: true` gives the app an HTTP adapter that never listens, through which the `get_forecast` route
 * tool runs its route.
 */
void bootstrapStdio(AppModule, { http: true });
