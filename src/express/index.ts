// `nestjs-mcp/express`: what only an Express application needs (and only it can import).
export { PrototypeExpressAdapter } from './prototype-express-adapter.js';
