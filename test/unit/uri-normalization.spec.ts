import { escapesTemplate, looseUriKey, normalizeUri } from '../../src/server/uri/uri-normalization.js';

describe('normalizeUri (RFC 3986 §6.2.2)', () => {
  it.each([
    ['HTTP://www.Example.com/', 'http://www.example.com/'],
    ['http://example.com/%7Esmith/home.html', 'http://example.com/~smith/home.html'],
    ['http://example.com/%7esmith/a%2fb', 'http://example.com/~smith/a%2Fb'],
    ['http://example.com/a/./b/../../c', 'http://example.com/c'],
    ['http://example.com/a/..', 'http://example.com/'],
    ['http://user@EXAMPLE.com:8080/A?Q=%41#F', 'http://user@example.com:8080/A?Q=A#F'],
    ['file:///%70ayroll.csv', 'file:///payroll.csv'],
    ['urn:Example:A%2e', 'urn:Example:A.'],
    ['no scheme/../x', 'no scheme/../x'],
  ])('%s → %s', (uri, normal) => {
    expect(normalizeUri(uri)).toBe(normal);
  });

  it('keeps the host case when asked (custom schemes use it as data)', () => {
    expect(normalizeUri('WEATHER://Oslo/./now', false)).toBe('weather://Oslo/now');
  });
});

describe('looseUriKey', () => {
  it('folds every spelling a decoding, path-joining, case-insensitive handler would read alike', () => {
    const key = looseUriKey('file:///payroll.csv');
    for (const uri of [
      'FILE:///PAYROLL.CSV',
      'file:///a%2F..%2Fpayroll.csv',
      'file:////payroll.csv',
      'file:///%5Cpayroll.csv',
    ])
      expect(looseUriKey(uri)).toBe(key);
    expect(looseUriKey('file:///payroll.csv.bak')).not.toBe(key);
  });
});

describe('escapesTemplate', () => {
  it.each([
    ['..', true],
    ['a/../b', true],
    ['a\\.\\b', true],
    ['/etc/passwd', true],
    ['\\x', true],
    ['C:x', true],
    ['a..b', false],
    ['.hidden', false],
    ['a/b', false],
  ])('%j → %s', (value, escapes) => {
    expect(escapesTemplate(value)).toBe(escapes);
  });
});
