import type { ParamData } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { ParamsFactory } from '@nestjs/core';
import { MCP_PARAM_ARGS_METADATA } from '../mcp-metadata.constants.js';

/** Hands each MCP parameter decorator its value from the arguments host (`McpArgumentsHost`). */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    const value = args[type];
    if (data === undefined || data === null || typeof value !== 'object' || value === null) return value;
    return (value as Record<string, unknown>)[data as string];
  }
}

interface ParamMetadata {
  index: number;
  data?: string;
  pipes?: unknown[];
}

/** The MCP parameters a provider's method declares: where each goes, what it receives, and its pipes. */
export function paramsOf(
  instance: object,
  methodName: string,
): Array<{ index: number; type: number; data?: string; pipes: unknown[]; custom: boolean }> {
  const metadata: Record<string, ParamMetadata> =
    Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, instance.constructor, methodName) ?? {};
  return Object.entries(metadata).map(([key, p]) => ({
    index: p.index,
    type: Number(key.split(':')[0]),
    data: p.data,
    pipes: p.pipes ?? [],
    custom: key.includes(CUSTOM_ROUTE_ARGS_METADATA),
  }));
}
