import { AppModule } from './../src/app.module.js';
import { defineMcpCases } from './mcp-cases.js';

defineMcpCases(AppModule, { runner: 'vitest' });
