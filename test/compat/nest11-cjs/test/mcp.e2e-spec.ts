import { AppModule } from '../src/app.module';
import { defineMcpCases, defineStdioCase } from './mcp-cases';

defineMcpCases(AppModule, { runner: 'jest-cjs' });
defineStdioCase();
