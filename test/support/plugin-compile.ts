import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { before } from '../../src/plugin/index.js';

// What a project sees of the package and of class-validator: declarations only, as installed.
const PACKAGE_TYPES = `
type Decorator = (target: object, key: string | symbol, descriptor: PropertyDescriptor) => void;
export declare function Tool(options?: Record<string, unknown>): Decorator;
export declare function Prompt(options?: Record<string, unknown>): Decorator;
export declare function ResourceTemplate(options: Record<string, unknown>): Decorator;
export declare function RouteTool(options?: Record<string, unknown>): Decorator;
export declare function Args(property?: string): ParameterDecorator;
export declare function McpCtx(): ParameterDecorator;
`;
const CLASS_VALIDATOR_TYPES = ['IsInt', 'IsEmail', 'IsOptional', 'IsPositive', 'IsUUID', 'IsNotEmpty']
  .map((name) => `export declare function ${name}(...args: unknown[]): PropertyDecorator;`)
  .concat(
    ['Min', 'Max', 'MinLength', 'MaxLength', 'Length', 'Matches', 'IsIn', 'ArrayMinSize'].map(
      (name) => `export declare function ${name}(...args: unknown[]): PropertyDecorator;`,
    ),
  )
  .join('\n');

const NEST_COMMON_TYPES = `
export declare function Injectable(): ClassDecorator;
export declare function Controller(path?: string): ClassDecorator;
export declare function Get(path?: string): MethodDecorator;
export declare function Post(path?: string): MethodDecorator;
export declare function Body(property?: string): ParameterDecorator;
export declare function Query(property?: string): ParameterDecorator;
export declare function Param(property?: string): ParameterDecorator;
`;

const PRELUDE = `import { Body, Controller, Get, Injectable, Param, Post, Query } from '@nestjs/common';
import { Tool, Prompt, ResourceTemplate, RouteTool, Args, McpCtx } from 'nestjs-mcp';
import { IsInt, IsEmail, IsOptional, IsPositive, IsUUID, IsNotEmpty, Min, Max, MinLength, MaxLength, Length, Matches, IsIn, ArrayMinSize } from 'class-validator';
`;

/** The outcome of compiling one source with the plugin: the emitted JavaScript, or the error the build fails with. */
export type PluginOutcome = { js: string; error?: undefined } | { js?: undefined; error: Error };

/**
 * Compiles sources (each a module that may use the package's decorators, with the imports above in scope) in one
 * TypeScript program with the plugin's `before` transformer, one emit per file so one refusal fails only its file.
 */
export function compileWithPlugin(sources: Record<string, string>): Record<string, PluginOutcome> {
  const root = mkdtempSync(join(tmpdir(), 'nestjs-mcp-plugin-'));
  try {
    for (const [dir, types] of [
      ['nestjs-mcp', PACKAGE_TYPES],
      ['class-validator', CLASS_VALIDATOR_TYPES],
      ['@nestjs/common', NEST_COMMON_TYPES],
    ]) {
      mkdirSync(join(root, 'node_modules', dir), { recursive: true });
      writeFileSync(join(root, 'node_modules', dir, 'index.d.ts'), types);
      writeFileSync(
        join(root, 'node_modules', dir, 'package.json'),
        JSON.stringify({ name: dir, types: 'index.d.ts' }),
      );
    }
    const files = Object.keys(sources).map((name) => join(root, `${name}.ts`));
    Object.values(sources).forEach((source, index) => writeFileSync(files[index], PRELUDE + source));
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      experimentalDecorators: true,
      // As a Nest app compiles: route tools read their DTOs' classes from it at start-up.
      emitDecoratorMetadata: true,
      skipLibCheck: true,
      types: [],
      noEmitOnError: false,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program);
    if (diagnostics.length > 0) {
      throw new Error(ts.formatDiagnostics(diagnostics, ts.createCompilerHost({})));
    }
    const outcomes: Record<string, PluginOutcome> = {};
    Object.keys(sources).forEach((name, index) => {
      let js = '';
      try {
        program.emit(
          program.getSourceFile(files[index]),
          (fileName, text) => {
            if (fileName.endsWith('.js')) js = text;
          },
          undefined,
          false,
          { before: [before({}, program)] },
        );
        outcomes[name] = { js };
      } catch (error) {
        outcomes[name] = { error: error as Error };
      }
    });
    return outcomes;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Runs emitted CommonJS and returns what it exports: with the modules given (the real decorators), or with every
 * import's decorators as no-ops.
 */
export function evaluate(js: string, modules: Record<string, unknown> = {}): Record<string, unknown> {
  const noop = () => () => undefined;
  const stub = new Proxy({}, { get: () => noop });
  const module = { exports: {} as Record<string, unknown> };
  const load = (name: string) => (Object.hasOwn(modules, name) ? modules[name] : stub);
  new Function('require', 'module', 'exports', js)(load, module, module.exports);
  return module.exports;
}
