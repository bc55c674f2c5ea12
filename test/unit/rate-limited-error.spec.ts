import { ErrorCode, httpHeadersForError, httpStatusForError } from '../../src/protocol/error-codes.js';
import { McpError } from '../../src/protocol/mcp-error.js';

describe('the rate-limit error (-32023) on the wire', () => {
  it('is HTTP 429, and no other code is', () => {
    expect(ErrorCode.RateLimited).toBe(-32023);
    expect(httpStatusForError(McpError.rateLimited('later', { retryAfterMs: 10 }))).toBe(429);
    const others = Object.values(ErrorCode).filter((code) => code !== ErrorCode.RateLimited);
    expect(others.map((code) => httpStatusForError({ code, data: { retryAfterMs: 10 } }))).not.toContain(429);
  });

  it("shares -32023 with SEP-3415's not-found, told apart by the wait it names", () => {
    expect(ErrorCode.NotFound).toBe(ErrorCode.RateLimited);
    const notFound = new McpError(ErrorCode.NotFound, 'Event not found: order.shipped', { kind: 'event' });
    expect(httpStatusForError(notFound)).toBe(400);
    expect(httpHeadersForError(notFound)).toBeUndefined();
    expect(httpStatusForError({ code: ErrorCode.NotFound })).toBe(400);
  });

  it('rounds retryAfterMs up to a positive integer', () => {
    expect(McpError.rateLimited('later', { retryAfterMs: 1500.2 }).data).toEqual({ retryAfterMs: 1501 });
    expect(McpError.rateLimited('later', { retryAfterMs: 0 }).data).toEqual({ retryAfterMs: 1 });
    expect(McpError.rateLimited('later', { retryAfterMs: 10, limit: 5, remaining: 0 })).toMatchObject({
      code: -32023,
      message: 'later',
      data: { retryAfterMs: 10, limit: 5, remaining: 0 },
    });
  });

  it('gives Retry-After in whole seconds, at least 1, and the budget headers only when the data names them', () => {
    const headers = (data: unknown) => httpHeadersForError({ code: ErrorCode.RateLimited, data });
    expect(headers({ retryAfterMs: 1 })).toEqual({ 'retry-after': '1' });
    expect(headers({ retryAfterMs: 1001 })).toEqual({ 'retry-after': '2' });
    expect(headers({ retryAfterMs: 60_000, limit: 2, remaining: 0 })).toEqual({
      'retry-after': '60',
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
    });
    // A -32023 that names no wait is SEP-3415's not-found, not a rate limit: no headers.
    expect(headers(undefined)).toBeUndefined();
    expect(headers({ retryAfterMs: 'soon', limit: 2 })).toBeUndefined();
    // A wait the client cannot act on still says when to come back; budgets that are no counts are left out.
    expect(headers({ retryAfterMs: 0, limit: -1, remaining: 1.5 })).toEqual({ 'retry-after': '1' });
    expect(httpHeadersForError({ code: ErrorCode.InvalidParams, data: { retryAfterMs: 5000 } })).toBeUndefined();
  });
});
