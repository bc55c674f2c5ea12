import type { IncomingMessage } from 'node:http';
import type { PreparedBody } from '../mcp-http-options.js';

/** Where a front layer leaves what it admitted (`McpHttpDriver.admit`) for the MCP route: the hand-off key. */
export const MCP_PREPARED_BODY = Symbol('MCP_PREPARED_BODY');

/** A request a front layer has been through: what it admitted, if it did. */
export type FrontedRequest = IncomingMessage & { [MCP_PREPARED_BODY]?: PreparedBody };
