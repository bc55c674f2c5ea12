import { bootstrapStdio } from 'nestjs-mcp';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

// What a desktop MCP client launches: the same AppModule and set-up on stdin/stdout. Its route tools send the
// token the client's config gives it in NOTES_TOKEN (a service user's, with only the roles the tools need).
const token = process.env.NOTES_TOKEN;
void bootstrapStdio(AppModule, {
  configure: configureApp,
  headers: token ? { authorization: `Bearer ${token}` } : {},
});
