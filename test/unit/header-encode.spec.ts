import { decodeHeaderValue, encodeHeaderValue } from '../../src/protocol/header-codec.js';

describe('encodeHeaderValue (client side of the SEP-2243 codec)', () => {
  it.each(['get_weather', 'file:///tmp/a b.txt', 'SGVsbG8=', 'a'])('keeps %j literal', (value) => {
    expect(encodeHeaderValue(value)).toBe(value);
  });

  it.each(['Zürich', ' padded ', 'tab\tinside\t', 'line\nbreak', '=?base64?SGVsbG8=?=', '=?base64?looks-like', ''])(
    'round-trips %j',
    (value) => {
      const encoded = encodeHeaderValue(value);
      expect(encoded).toMatch(/^[\x20-\x7e]*$/);
      expect(decodeHeaderValue(encoded)).toEqual({ ok: true, value });
    },
  );

  it('wraps non-ASCII, edge whitespace and sentinel look-alikes', () => {
    expect(encodeHeaderValue('Zürich')).toBe('=?base64?WsO8cmljaA==?=');
    expect(encodeHeaderValue(' x')).toMatch(/^=\?base64\?/);
    expect(encodeHeaderValue('=?base64?abc')).toMatch(/^=\?base64\?.*\?=$/);
  });
});
