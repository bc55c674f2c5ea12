import { AppModule } from '../src/app.module';
import { defineMcpCases, definePluginCase, defineStdioCase } from './mcp-cases';

defineMcpCases(AppModule, { runner: 'jest-cjs' });
definePluginCase(AppModule);
defineStdioCase();
