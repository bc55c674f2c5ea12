import { AppModule } from '../src/app.module.js';
import { defineMcpCases, definePluginCase, defineStdioCase } from './mcp-cases.js';

defineMcpCases(AppModule, { runner: 'vitest' });
definePluginCase(AppModule);
defineStdioCase();
