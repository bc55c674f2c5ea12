import { McpModule } from 'nestjs-mcp';

// src/metadata.ts is written by plugin-metadata.setup.ts when the run starts, so it is not imported by name.
const generated = '../src/metadata.js';
const { default: metadata } = (await import(generated)) as { default: () => Promise<Record<string, unknown>> };
await McpModule.loadPluginMetadata(metadata);
