import { trustedEndpointUrl } from '../../src/auth/tokens/endpoint-url.js';
import { canonicalResourceUri } from '../../src/auth/protected-resource-metadata.js';

/** A start-up error that wraps another keeps it as `cause`, so the operator sees what the platform said too. */
describe('Errors that wrap another carry it as cause', () => {
  it.each([
    ['an endpoint URL that does not parse', () => trustedEndpointUrl('auth.jwt.jwksUri', 'not a url')],
    ['a resource URI that does not parse', () => canonicalResourceUri('not a uri')],
  ])('%s', (_label, build) => {
    let thrown: unknown;
    try {
      build();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/must be an absolute UR[LI], got "not a ur[li]"/);
    // URL's own error (a TypeError from Node's realm, not jest's, so matched by its code).
    expect((thrown as Error).cause).toMatchObject({ code: 'ERR_INVALID_URL' });
  });
});
