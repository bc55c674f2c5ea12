import { Inject } from '@nestjs/common';
import { getMcpServerToken } from '../mcp-server.token.js';

/** Injects the MCP server named `name`; without a name, the default server (the same one `MCPServer` gives). */
export const InjectMcpServer = (name?: string): PropertyDecorator & ParameterDecorator =>
  Inject(getMcpServerToken(name));
