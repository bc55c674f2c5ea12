import { createToolContext } from '../../src/testing/index.js';

const UI = 'io.modelcontextprotocol/ui';
const supportsUi = (clientCapabilities: Record<string, unknown>, mimeType?: string) =>
  createToolContext({ clientCapabilities }).context.supportsUi(mimeType);

describe('McpContext.supportsUi', () => {
  it('is true only when the request declares the UI extension with the mcp-app mimeType', () => {
    expect(supportsUi({ extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } })).toBe(true);
    expect(supportsUi({ extensions: { [UI]: { mimeTypes: ['text/uri-list'] } } })).toBe(false);
    expect(supportsUi({ extensions: { [UI]: {} } })).toBe(false);
    expect(supportsUi({ extensions: {} })).toBe(false);
    expect(supportsUi({})).toBe(false);
  });

  it('is false for a malformed declaration', () => {
    expect(supportsUi({ extensions: { [UI]: { mimeTypes: 'text/html;profile=mcp-app' } } })).toBe(false);
    expect(supportsUi({ extensions: { [UI]: 'yes' } })).toBe(false);
  });

  it('answers for another mimeType when asked', () => {
    const declared = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app', 'application/x-widget'] } } };
    expect(supportsUi(declared, 'application/x-widget')).toBe(true);
    expect(supportsUi(declared, 'text/plain')).toBe(false);
  });
});
