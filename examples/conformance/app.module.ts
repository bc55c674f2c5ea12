import { Module, type Provider } from '@nestjs/common';
import { McpModule } from '../../src/index.js';
import { ConformancePrompts } from './conformance.prompts.js';
import { ConformanceResources } from './conformance.resources.js';
import { CancellationTools } from './cancellation.tools.js';
import { ClientRequestTools } from './client-request.tools.js';
import { ContentTools } from './content.tools.js';
import { DiagnosticTools } from './diagnostic.tools.js';
import { InputRequiredTools } from './input-required.tools.js';
import { ListChangedTools } from './list-changed.tools.js';
import { fixtureMcpModules } from './mcp-setup.js';
import pluginMetadata from './plugin-metadata.js';
import { ProgressTools } from './progress.tools.js';
import { SchemaTools } from './schema.tools.js';
import { ConformanceSkills } from './conformance.skills.js';
import { TaskTools } from './task.tools.js';

/** The fixture's providers, for a test that runs them under options of its own (`fixtureMcpModules(env)`). */
export const CONFORMANCE_PROVIDERS: Provider[] = [
  // nestjs-mcp/plugin's derivations for the tools written without a schema (scripts/plugin-metadata.mjs); an
  // async factory settles before any module starts, so the explorer reads them.
  { provide: 'PLUGIN_METADATA', useFactory: () => McpModule.loadPluginMetadata(pluginMetadata) },
  ContentTools,
  ProgressTools,
  CancellationTools,
  SchemaTools,
  DiagnosticTools,
  ListChangedTools,
  InputRequiredTools,
  ClientRequestTools,
  TaskTools,
  ConformanceResources,
  ConformancePrompts,
  ConformanceSkills,
];

/**
 * The conformance fixture: exactly what `@modelcontextprotocol/conformance` calls for the 2026-07-28 and
 * 2025-11-25 requirement sets and the tasks extension's scenarios, on one endpoint, declared with the library's
 * decorators on ordinary providers. `McpModule` registers them
 * at start-up in provider order, then method order, which is the order of `tools/list`. With `REDIS_URL` it
 * runs as one of several instances (see `mcp-setup.ts`).
 */
@Module({ imports: fixtureMcpModules(), providers: CONFORMANCE_PROVIDERS })
export class ConformanceModule {}
