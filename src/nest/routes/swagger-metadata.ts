import { isPrimitiveType, type ApiValueMetadata } from '../../server/schema/api-property-schema.js';

// `@nestjs/swagger` keeps its decorators' options as reflect-metadata under these keys; reading them needs
// nothing of the package, so a route's Swagger metadata is used where the app has it and costs nothing where not.
const API_OPERATION = 'swagger/apiOperation';
const API_RESPONSE = 'swagger/apiResponse';
const API_PARAMETERS = 'swagger/apiParameters';
export const API_EXCLUDE_ENDPOINT = 'swagger/apiExcludeEndpoint';

export interface ApiOperationMetadata {
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
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
