// `nestjs-mcp/bullmq`: the work of tasks (SEP-2663) as BullMQ jobs, run by workers apart from the web tier.
// The only entry point that loads BullMQ and `@nestjs/bullmq` (optional peer dependencies).
export { McpBullModule } from './mcp-bull.module.js';
export { McpTaskQueue } from './mcp-task-queue.js';
export { McpTaskWorker } from './mcp-task-worker.js';
export { bootstrapTaskWorker, type McpTaskWorkerBootstrapOptions } from './bootstrap-task-worker.js';
export type { McpBullOptions } from './mcp-bull-options.interface.js';
