import type { JsonSchema } from '../../protocol/mcp-types.js';

// `@nestjs/swagger` keeps its decorators' options as reflect-metadata under these keys; reading them needs
// nothing of the package, so a route's Swagger metadata is used where the app has it and costs nothing where not.
const API_OPERATION = 'swagger/apiOperation';
const API_RESPONSE = 'swagger/apiResponse';
const API_PARAMETERS = 'swagger/apiParameters';
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';
const API_MODEL_PROPERTIES_ARRAY = 'swagger/apiModelPropertiesArray';
export const API_EXCLUDE_ENDPOINT = 'swagger/apiExcludeEndpoint';

export interface ApiOperationMetadata {
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
}

/** What `@ApiParam`, `@ApiQuery` and `@ApiProperty` say of one value. */
export interface ApiValueMetadata {
  name?: string;
  in?: string;
  type?: unknown;
  isArray?: boolean;
  required?: boolean;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  nullable?: boolean;
  /** Where `@ApiQuery`/`@ApiParam` put an `enum` and its type. */
  schema?: Omit<ApiValueMetadata, 'schema'>;
}

interface ApiResponseMetadata {
  type?: unknown;
  isArray?: boolean;
}

export function apiOperationOf(method: Function): ApiOperationMetadata | undefined {
  return Reflect.getMetadata(API_OPERATION, method) as ApiOperationMetadata | undefined;
}

/** `@ApiParam` / `@ApiQuery` of the handler, by where (`path`, `query`) and name. */
export function apiParameterOf(method: Function, where: 'path' | 'query', name: string): ApiValueMetadata | undefined {
  const parameters = (Reflect.getMetadata(API_PARAMETERS, method) ?? []) as ApiValueMetadata[];
  return parameters.find((parameter) => parameter.in === where && parameter.name === name);
}

/**
 * The class of the route's success answer: `@ApiOkResponse({ type })`, or the first other 2xx `@ApiResponse`
 * with a class type, on the handler or its controller. An array answer has none: structured content is an object.
 */
export function apiResponseTypeOf(method: Function, controller: Function): Function | undefined {
  for (const source of [method, controller]) {
    const responses = (Reflect.getMetadata(API_RESPONSE, source) ?? {}) as Record<string, ApiResponseMetadata>;
    for (const [status, response] of Object.entries(responses)) {
      if (!/^2\d\d$/.test(status) || response.isArray || typeof response.type !== 'function') continue;
      if (!isPrimitiveType(response.type)) return response.type;
    }
  }
  return undefined;
}

/** `@ApiProperty` of each property of a DTO class, its inherited ones included. */
export function apiPropertiesOf(dto: Function): Map<string, ApiValueMetadata> {
  const properties = new Map<string, ApiValueMetadata>();
  const prototype = dto.prototype as object;
  for (const key of (Reflect.getMetadata(API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[]) {
    const name = key.startsWith(':') ? key.slice(1) : key;
    properties.set(name, (Reflect.getMetadata(API_MODEL_PROPERTIES, prototype, name) ?? {}) as ApiValueMetadata);
  }
  return properties;
}

/** A value's JSON Schema with what its Swagger decorator adds (description, enum, bounds, type when missing). */
export function withApiValue(schema: JsonSchema, value: ApiValueMetadata): JsonSchema {
  const api: ApiValueMetadata = value.schema ? { ...value.schema, ...withoutUndefined(value) } : value;
  const out: JsonSchema = { ...schema };
  if (out.type === undefined && out.$ref === undefined) {
    const type = jsonTypeOf(api.type);
    if (type) out.type = api.isArray ? 'array' : type;
    if (type && api.isArray) out.items = { type };
  }
  const keys = [
    'description',
    'enum',
    'default',
    'format',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'pattern',
  ] as const;
  for (const key of keys) if (api[key] !== undefined && out[key] === undefined) out[key] = api[key];
  if (api.example !== undefined && out.examples === undefined) out.examples = [api.example];
  return out;
}

/** The JSON Schema type of a constructor or Swagger type name, where it is a primitive. */
export function jsonTypeOf(type: unknown): string | undefined {
  if (type === String || type === 'string') return 'string';
  if (type === Number || type === 'number') return 'number';
  if (type === 'integer') return 'integer';
  if (type === Boolean || type === 'boolean') return 'boolean';
  if (type === Array || type === 'array') return 'array';
  if (type === Date) return 'string';
  return undefined;
}

/** Whether a design type is a primitive wrapper rather than a DTO class. */
export function isPrimitiveType(type: unknown): boolean {
  return type === String || type === Number || type === Boolean || type === Array || type === Object || type === Date;
}

function withoutUndefined(value: ApiValueMetadata): ApiValueMetadata {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as ApiValueMetadata;
}
