import { AppModule } from '../src/app.module.js';
import { defineMcpCases, defineStdioCase } from './mcp-cases.js';

defineMcpCases(AppModule, { runner: 'vitest' });
defineStdioCase();
