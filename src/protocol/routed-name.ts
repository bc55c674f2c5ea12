import type { JsonRpcRequest } from './jsonrpc.js';

type Addressed = Pick<JsonRpcRequest, 'method' | 'params'>;

/** Which param names the primitive a request addresses: a tool's or prompt's `name`, a resource's `uri`. */
export function primitiveParam(method: string): 'name' | 'uri' | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  return undefined;
}

/** The tool or prompt name, or the resource URI, that a request addresses; undefined when it names none as a string. */
export function primitiveName(request: Addressed): string | undefined {
  const param = primitiveParam(request.method);
  const value = param && request.params?.[param];
  return typeof value === 'string' ? value : undefined;
}

/** The body value that `Mcp-Name` mirrors, for the methods that have one. */
export function routedName(request: Addressed): string | undefined {
  switch (request.method) {
    // The tasks extension routes by task, so a load balancer can send a task's traffic where its state is.
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      return typeof request.params?.taskId === 'string' ? request.params.taskId : undefined;
    default:
      return primitiveName(request);
  }
}

/** Where `routedName` found the value, for error messages. */
export function routedParam(method: string): string {
  return `params.${primitiveParam(method) ?? 'taskId'}`;
}
