import { Module } from '@nestjs/common';
import { McpModule } from '../../src/index.js';
import { ConformancePrompts } from './conformance.prompts.js';
import { ConformanceResources } from './conformance.resources.js';
import { ContentTools } from './content.tools.js';
import { DiagnosticTools } from './diagnostic.tools.js';
import { InputRequiredTools } from './input-required.tools.js';

/**
 * The conformance fixture: exactly what `@modelcontextprotocol/conformance` calls for the 2026-07-28
 * requirement set, built only from the library's public API. Provider order is tool order.
 */
@Module({
  imports: [McpModule.forRoot({ name: 'nestjs-mcp-conformance', version: '1.0.0' })],
  providers: [ContentTools, DiagnosticTools, InputRequiredTools, ConformanceResources, ConformancePrompts],
})
export class ConformanceModule {}
