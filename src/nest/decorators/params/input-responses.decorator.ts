import type { InputResponses as InputResponsesMap } from '../../../protocol/mcp-types.js';
import { McpParamtype } from '../../pipeline/mcp-paramtype.enum.js';
import { createMcpParamDecorator } from './mcp-param-decorator.factory.js';

/** The client's answers to earlier input requests (merged over rounds); `@InputResponses('confirm')` picks one. */
export const InputResponses = createMcpParamDecorator(McpParamtype.INPUT_RESPONSES);
/** The same name is the type of what it injects, so `@InputResponses() answers: InputResponses` reads naturally. */
export type InputResponses = InputResponsesMap;
