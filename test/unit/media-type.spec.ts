import { acceptsJsonAndEventStream } from '../../src/http/policy/media-type.js';

describe('acceptsJsonAndEventStream', () => {
  const cases: Array<[string | undefined, boolean]> = [
    ['application/json, text/event-stream', true],
    ['text/event-stream, application/json', true],
    ['*/*', true],
    ['application/*, text/*', true],
    ['application/json', false],
    ['text/event-stream', false],
    ['application/json, text/event-stream;q=0', false],
    ['*/*, application/json;q=0', false],
    ['', false],
    [undefined, false],
    [`application/json, text/event-stream, ${'x/y, '.repeat(60)}z/z`, true],
    [`application/json, ${'x/y, '.repeat(60)}text/event-stream;q=0`, false],
  ];

  it.each(cases)('answers %j: %s, and the same when asked again (the verdict kept or not)', (header, expected) => {
    expect(acceptsJsonAndEventStream(header)).toBe(expected);
    expect(acceptsJsonAndEventStream(header)).toBe(expected);
  });

  it('still parses every header once more distinct headers were seen than it keeps', () => {
    for (let i = 0; i < 200; i++) {
      expect(acceptsJsonAndEventStream(`application/json, text/event-stream, x/v${i}`)).toBe(true);
      expect(acceptsJsonAndEventStream(`application/json, text/event-stream;q=0, x/v${i}`)).toBe(false);
    }
    expect(acceptsJsonAndEventStream('application/json, text/event-stream')).toBe(true);
  });
});
