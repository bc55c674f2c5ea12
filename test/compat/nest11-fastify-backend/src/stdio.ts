import { bootstrapStdio } from 'nestjs-mcp';
import { AppModule } from './app.module';

// What a desktop MCP client launches: the same AppModule on stdin/stdout (logs on stderr), no HTTP server.
void bootstrapStdio(AppModule);
