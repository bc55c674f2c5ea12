/**
 * Whether a token reads as a JWT whose `exp` has passed, without verifying it. Only for wording the refusal of a
 * token that something else (the app's own guard) already refused: it grants nothing, so a forged `exp` can at
 * most change which description the refusal carries.
 */
export function readsAsExpired(token: string, nowSec = Date.now() / 1000): boolean {
  const payload = token.split('.')[1];
  if (payload === undefined) return false;
  try {
    const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof exp === 'number' && exp <= nowSec;
  } catch {
    return false;
  }
}
