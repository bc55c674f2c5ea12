export interface BearerChallenge {
  /** The URL of this resource's Protected Resource Metadata (RFC 9728 §5.1). */
  resourceMetadata: string;
  /** The scopes to ask for, space-separated into one `scope` parameter (RFC 6750 §3). */
  scopes?: readonly string[];
  /** `invalid_token` or `insufficient_scope`; absent when no credentials were sent (RFC 6750 §3.1). */
  error?: 'invalid_token' | 'insufficient_scope';
  errorDescription?: string;
}

/** Builds a `WWW-Authenticate: Bearer …` value (RFC 6750 §3) whose quoted values are always well formed. */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error="${quotable(challenge.error)}"`);
  if (challenge.scopes && challenge.scopes.length > 0) params.push(`scope="${quotable(challenge.scopes.join(' '))}"`);
  params.push(`resource_metadata="${quotable(challenge.resourceMetadata)}"`);
  if (challenge.errorDescription) params.push(`error_description="${quotable(challenge.errorDescription)}"`);
  return `Bearer ${params.join(', ')}`;
}

// RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E in these values: drop anything else (quotes, backslashes,
// control characters) so no value can break out of its quotes.
function quotable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '');
}
