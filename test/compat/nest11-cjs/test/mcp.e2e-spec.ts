import { AppModule } from './../src/app.module';
import { defineMcpCases } from './mcp-cases';

defineMcpCases(AppModule, { runner: 'jest-cjs' });
