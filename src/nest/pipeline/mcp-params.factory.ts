import type { ParamData } from '@nestjs/common';
import type { ParamsFactory } from '@nestjs/core';

/** Hands each MCP parameter decorator its value from the arguments host (`McpArgumentsHost`). */
export class McpParamsFactory implements ParamsFactory {
  exchangeKeyForValue(type: number, data: ParamData, args: unknown[]): unknown {
    const value = args[type];
    if (data === undefined || data === null || typeof value !== 'object' || value === null) return value;
    return (value as Record<string, unknown>)[data as string];
  }
}
