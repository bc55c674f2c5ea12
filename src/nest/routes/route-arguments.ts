import { ParseArrayPipe, ParseBoolPipe, ParseFloatPipe, ParseIntPipe, ParseUUIDPipe } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { JsonSchema } from '../../protocol/mcp-types.js';
import { convertSchema } from '../../server/schema/schema-converter.js';
import type { RouteArgumentDescriptions } from '../../plugin/metadata/plugin-metadata.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { ARGUMENT_COLLISION } from '../mcp-messages.js';
import type { RouteArgumentSource, RouteToolOptions } from '../decorators/route-tool-options.interface.js';
import { apiParameterOf } from './swagger-metadata.js';
import {
  isPrimitiveType,
  jsonTypeOf,
  withApiValue,
  type ApiValueMetadata,
} from '../../server/schema/api-property-schema.js';

/** One tool argument and where the route reads it; `key` undefined: it is the whole body. */
export interface RouteArgument {
  name: string;
  source: RouteArgumentSource;
  key: string | undefined;
  /** How the route declares it, for start-up errors: `@Param('id')`, `CreateOrderDto.name (@Body())`. */
  declaredBy: string;
}

/** How a tool's flat arguments become the route's path, query and body: worked out once, at start-up. */
export interface RouteArguments {
  inputSchema: JsonSchema;
  byName: ReadonlyMap<string, RouteArgument>;
  /** Each `:token` of the path and the argument that fills it. */
  pathNames: ReadonlyMap<string, string>;
  /** Where arguments the schema does not name go: a route taking an untyped `@Body()` or `@Query()`. */
  rest?: 'body' | 'query';
  /** Whether the route reads a body at all (a GET without `@Body` is sent none). */
  hasBody: boolean;
}

interface ParamMetadata {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

const PATH_TOKEN = /:([A-Za-z0-9_]+)/g;

/**
 * The flat arguments of a route: its path parameters, query keys and body keys side by side, from `@Param`,
 * `@Query` and `@Body` (single keys or a whole DTO, whose class-validator and `@ApiProperty` metadata give the
 * keys' schemas) and the path's own `:tokens`. A key two places declare fails start-up naming both, unless
 * `rename` gives one of them another name. Other parameters (`@Req`, `@Headers`, custom decorators) are the
 * route's business and take no argument.
 */
export function routeArguments(
  controller: Function,
  methodName: string,
  path: string,
  place: string,
  rename: RouteToolOptions['rename'],
  descriptions: RouteArgumentDescriptions = {},
): RouteArguments {
  const method = (controller.prototype as Record<string, Function>)[methodName];
  const declared = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<
    string,
    ParamMetadata
  >;
  const designTypes = (Reflect.getMetadata('design:paramtypes', controller.prototype, methodName) ?? []) as unknown[];
  const args = new ArgumentCollector(place, rename, descriptions);
  let rest: RouteArguments['rest'];
  let hasBody = false;

  const entries = Object.entries(declared)
    .filter(([key]) => !key.includes(CUSTOM_ROUTE_ARGS_METADATA))
    .sort(([, a], [, b]) => a.index - b.index);
  for (const [key, param] of entries) {
    const type = Number(key.split(':')[0]);
    const designType = designTypes[param.index];
    const data = typeof param.data === 'string' ? param.data : undefined;
    switch (type) {
      case RouteParamtypes.PARAM: {
        if (data !== undefined) {
          const schema = apiValueSchema(scalarSchema(designType, param.pipes), apiParameterOf(method, 'path', data));
          args.add({ source: 'path', key: data, declaredBy: `@Param('${data}')` }, schema, true);
        } else if (isDto(designType)) args.addDto('path', designType as Function, '@Param()');
        break;
      }
      case RouteParamtypes.QUERY: {
        if (data !== undefined) {
          const api = apiParameterOf(method, 'query', data);
          const schema = apiValueSchema(scalarSchema(designType, param.pipes), api);
          args.add({ source: 'query', key: data, declaredBy: `@Query('${data}')` }, schema, api?.required ?? false);
        } else if (isDto(designType)) args.addDto('query', designType as Function, '@Query()');
        else rest ??= 'query';
        break;
      }
      case RouteParamtypes.BODY: {
        hasBody = true;
        if (data !== undefined) {
          args.add(
            { source: 'body', key: data, declaredBy: `@Body('${data}')` },
            scalarSchema(designType, param.pipes),
            false,
          );
        } else if (isDto(designType)) args.addDto('body', designType as Function, '@Body()');
        else if (designType === Object || designType === undefined) rest = 'body';
        else
          args.add(
            { source: 'body', key: undefined, declaredBy: '@Body()' },
            scalarSchema(designType, param.pipes),
            true,
          );
        break;
      }
    }
  }
  for (const [, token] of path.matchAll(PATH_TOKEN)) {
    if (args.pathNames.has(token)) continue;
    args.add({ source: 'path', key: token, declaredBy: `the path "${path}"` }, { type: 'string' }, true);
  }
  return { inputSchema: args.inputSchema(), byName: args.byName, pathNames: args.pathNames, rest, hasBody };
}

/** The arguments found so far, by the name the tool gives them, and the schema they make. */
class ArgumentCollector {
  readonly byName = new Map<string, RouteArgument>();
  readonly pathNames = new Map<string, string>();
  private readonly properties: Record<string, JsonSchema> = {};
  private readonly required: string[] = [];
  private defs: Record<string, JsonSchema> | undefined;

  constructor(
    private readonly place: string,
    private readonly rename: RouteToolOptions['rename'],
    /** What `nestjs-mcp/plugin` read in the comments; a description the decorators give wins. */
    private readonly descriptions: RouteArgumentDescriptions,
  ) {}

  add(argument: Omit<RouteArgument, 'name'>, given: JsonSchema, isRequired: boolean): void {
    const doc = argument.key === undefined ? undefined : this.descriptions[argument.source]?.[argument.key];
    const schema = doc !== undefined && given.description === undefined ? { ...given, description: doc } : given;
    const rename = this.rename;
    const name = (argument.key !== undefined && rename?.[argument.source]?.[argument.key]) || argument.key || 'body';
    const claimed = this.byName.get(name);
    if (claimed)
      throw new McpConfigurationError(ARGUMENT_COLLISION(this.place, name, claimed.declaredBy, argument.declaredBy));
    this.byName.set(name, { ...argument, name });
    if (argument.source === 'path') this.pathNames.set(argument.key!, name);
    this.properties[name] = schema;
    if (isRequired) this.required.push(name);
  }

  addDto(source: RouteArgumentSource, dto: Function, decorator: string): void {
    const schema = dtoSchema(dto);
    if (schema.$defs) this.defs = { ...this.defs, ...(schema.$defs as Record<string, JsonSchema>) };
    const dtoRequired = new Set((schema.required ?? []) as string[]);
    for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      const declaredBy = `${dto.name}.${key} (${decorator})`;
      this.add({ source, key, declaredBy }, property, source === 'path' || dtoRequired.has(key));
    }
  }

  inputSchema(): JsonSchema {
    const inputSchema: JsonSchema = { type: 'object', properties: this.properties };
    if (this.required.length > 0) inputSchema.required = this.required;
    if (this.defs) inputSchema.$defs = this.defs;
    return inputSchema;
  }
}

/** A DTO class's JSON Schema, as `@Tool` gets it: its class-validator rules plus its `@ApiProperty` ones. */
export function dtoSchema(dto: Function): JsonSchema {
  return convertSchema(dto as new () => unknown, 'input');
}

function apiValueSchema(schema: JsonSchema, api: ApiValueMetadata | undefined): JsonSchema {
  return api ? withApiValue(schema, api) : schema;
}

/** A single path, query or body key: typed by the pipe that parses it, else by its TypeScript type. */
function scalarSchema(designType: unknown, pipes: unknown[] = []): JsonSchema {
  const pipe = (kind: Function) => pipes.some((p) => p === kind || p instanceof kind);
  if (pipe(ParseIntPipe)) return { type: 'integer' };
  if (pipe(ParseFloatPipe)) return { type: 'number' };
  if (pipe(ParseBoolPipe)) return { type: 'boolean' };
  if (pipe(ParseUUIDPipe)) return { type: 'string', format: 'uuid' };
  if (pipe(ParseArrayPipe)) return { type: 'array' };
  const type = jsonTypeOf(designType);
  return type ? { type } : {};
}

function isDto(type: unknown): boolean {
  return typeof type === 'function' && !isPrimitiveType(type);
}
