import { classifyEra, legacyOffError } from '../../src/protocol/classifier.js';
import { parseClientReply, replyAnswer } from '../../src/protocol/client-reply.js';

const CLAIM = 'io.modelcontextprotocol/protocolVersion';
const claim = (version: string, extra: Record<string, unknown> = {}) => ({ _meta: { [CLAIM]: version, ...extra } });
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
const header = (version?: string) => (version ? { 'mcp-protocol-version': version } : {});

describe('classifyEra: the dual-era rung, in ladder order', () => {
  it('leaves what is not one object to the modern shape rung (batches, scalars)', () => {
    expect(classifyEra([req('ping')], {})).toEqual({ era: 'modern' });
    expect(classifyEra('x', {})).toEqual({ era: 'modern' });
    expect(classifyEra(null, {})).toEqual({ era: 'modern' });
  });

  it('routes a posted response to the reply leg, at the header version or 2025-03-26', () => {
    expect(classifyEra({ jsonrpc: '2.0', id: 'srv-1', result: {} }, {})).toEqual({
      era: 'reply',
      version: '2025-03-26',
    });
    expect(
      classifyEra({ jsonrpc: '2.0', id: 'srv-1', error: { code: 1, message: 'x' } }, header('2025-11-25')),
    ).toEqual({ era: 'reply', version: '2025-11-25' });
  });

  it('leaves a response under a modern header to the modern rung, and refuses one under an unknown header', () => {
    expect(classifyEra({ jsonrpc: '2.0', id: 'srv-1', result: {} }, header('2026-07-28'))).toEqual({ era: 'modern' });
    const refused = classifyEra({ jsonrpc: '2.0', id: 'srv-1', result: {} }, header('1999-01-01'));
    expect(refused).toMatchObject({ era: 'refused', status: 400, response: { id: null, error: { code: -32022 } } });
  });

  it('serves initialize without a claim on the legacy leg, whatever version it asks for', () => {
    expect(classifyEra(req('initialize', { protocolVersion: '2025-06-18' }), {})).toEqual({
      era: 'legacy',
      version: '2025-03-26',
    });
    expect(classifyEra(req('initialize', { protocolVersion: '2026-07-28' }), {})).toEqual({
      era: 'legacy',
      version: '2025-03-26',
    });
    expect(classifyEra(req('initialize', { protocolVersion: '2025-11-25' }), header('2025-11-25'))).toEqual({
      era: 'legacy',
      version: '2025-11-25',
    });
  });

  it('keeps an initialize that claims 2026-07-28 on the modern path (its 404)', () => {
    expect(classifyEra(req('initialize', claim('2026-07-28')), header('2026-07-28'))).toEqual({ era: 'modern' });
  });

  it('serves an initialize whose claim names no modern revision on the legacy leg', () => {
    expect(classifyEra(req('initialize', claim('2025-11-25')), {})).toEqual({ era: 'legacy', version: '2025-03-26' });
  });

  it('refuses an initialize under a modern header without the claim: 400 -32020', () => {
    expect(classifyEra(req('initialize', { protocolVersion: '2025-11-25' }, 'i'), header('2026-07-28'))).toMatchObject({
      era: 'refused',
      status: 400,
      response: { id: 'i', error: { code: -32020 } },
    });
  });

  it('takes any request with the claim key to the modern path, even an unsupported or mismatched one', () => {
    expect(classifyEra(req('tools/list', claim('2026-07-28')), header('2026-07-28'))).toEqual({ era: 'modern' });
    expect(classifyEra(req('ping', claim('2026-07-28')), header('2026-07-28'))).toEqual({ era: 'modern' });
    expect(classifyEra(req('tools/list', claim('v999')), header('v999'))).toEqual({ era: 'modern' });
    expect(classifyEra(req('tools/list', claim('2025-11-25')), {})).toEqual({ era: 'modern' });
    expect(classifyEra(req('tools/list', claim('2026-07-28')), header('2025-11-25'))).toEqual({ era: 'modern' });
  });

  it('does not take other 2026 _meta keys for a claim (a legacy client may send a log level)', () => {
    const params = { _meta: { 'io.modelcontextprotocol/logLevel': 'info' } };
    expect(classifyEra(req('tools/list', params), header('2025-11-25'))).toEqual({
      era: 'legacy',
      version: '2025-11-25',
    });
  });

  it('refuses a request under a modern header without the claim: 400 -32602, echoing the id', () => {
    expect(classifyEra(req('tools/list', {}, 7), header('2026-07-28'))).toMatchObject({
      era: 'refused',
      status: 400,
      response: { id: 7, error: { code: -32602 } },
    });
    expect(classifyEra(req('tools/list', undefined, 8), header('2026-07-28'))).toMatchObject({
      era: 'refused',
      response: { id: 8, error: { code: -32602 } },
    });
  });

  it('leaves a notification under a modern header to the modern path', () => {
    expect(classifyEra({ jsonrpc: '2.0', method: 'notifications/cancelled' }, header('2026-07-28'))).toEqual({
      era: 'modern',
    });
  });

  it('serves a request without a claim on the legacy leg at its header version, or 2025-03-26 without one', () => {
    expect(classifyEra(req('tools/list'), {})).toEqual({ era: 'legacy', version: '2025-03-26' });
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      expect(classifyEra(req('tools/list'), header(version))).toEqual({ era: 'legacy', version });
    }
    expect(classifyEra({ jsonrpc: '2.0', method: 'notifications/initialized' }, {})).toEqual({
      era: 'legacy',
      version: '2025-03-26',
    });
  });

  it('refuses a legacy message whose header names no revision this server speaks: 400 -32022', () => {
    const refused = classifyEra(req('tools/list', {}, 3), header('1999-01-01'));
    expect(refused).toMatchObject({
      era: 'refused',
      status: 400,
      response: { id: 3, error: { code: -32022, data: { supported: ['2026-07-28'], requested: '1999-01-01' } } },
    });
    expect(classifyEra({ jsonrpc: '2.0', method: 'notifications/initialized' }, header('1999-01-01'))).toMatchObject({
      era: 'refused',
      status: 400,
    });
  });

  it('legacyOffError names the supported revisions and the requested one', () => {
    expect(legacyOffError(req('initialize', { protocolVersion: '2025-06-18' }, 4), '2025-03-26')).toMatchObject({
      id: 4,
      error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-06-18' } },
    });
    expect(legacyOffError(req('tools/list', {}, 5), '2025-11-25').error.data).toEqual({
      supported: ['2026-07-28'],
      requested: '2025-11-25',
    });
  });
});

describe('client replies', () => {
  it('parses exactly one response to a string id', () => {
    expect(parseClientReply({ jsonrpc: '2.0', id: 'srv-1', result: { a: 1 } })).toEqual({
      id: 'srv-1',
      reply: { result: { a: 1 } },
    });
    expect(
      parseClientReply({ jsonrpc: '2.0', id: 'srv-1', error: { code: -1, message: 'no', data: 2, extra: 3 } }),
    ).toEqual({
      id: 'srv-1',
      reply: { error: { code: -1, message: 'no', data: 2 } },
    });
    expect(parseClientReply({ jsonrpc: '1.0', id: 'srv-1', result: {} })).toBeNull();
    expect(parseClientReply({ jsonrpc: '2.0', id: null, result: {} })).toBeNull();
    expect(parseClientReply({ jsonrpc: '2.0', id: 'srv-1', result: [] })).toBeNull();
    expect(parseClientReply({ jsonrpc: '2.0', id: 'srv-1', error: { code: 1.5, message: 'x' } })).toBeNull();
  });

  it('answers 202 for a delivered reply and a 4xx JSON-RPC error without an id otherwise', () => {
    expect(replyAnswer('delivered')).toEqual({ status: 202 });
    expect(replyAnswer('unknown')).toMatchObject({ status: 400, response: { id: null, error: { code: -32600 } } });
    expect(replyAnswer('forbidden')).toMatchObject({ status: 403, response: { id: null } });
    expect(replyAnswer('malformed')).toMatchObject({ status: 400 });
    expect(replyAnswer('too-large')).toMatchObject({ status: 413 });
  });
});
