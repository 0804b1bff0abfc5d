import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** The principal of callers without a token (loopback only). */
export const ANONYMOUS = 'anonymous';

/** Seconds a verified token is reported valid for (the SDK refuses AuthInfo without `expiresAt`). */
const VALID_FOR_S = 3600;

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * A verifier for one shared secret. Both sides are hashed to 32 bytes and compared with
 * `crypto.timingSafeEqual`, so the time taken tells nothing about the token, not even its length.
 * The caller's principal (`clientId`) is `token:` plus 12 hex digits of the token's SHA-256: stable,
 * and never the secret itself.
 */
export function sharedTokenVerifier(token: string): OAuthTokenVerifier {
  const expected = digest(token);
  const clientId = `token:${expected.toString('hex').slice(0, 12)}`;
  return {
    async verifyAccessToken(presented: string): Promise<AuthInfo> {
      if (!timingSafeEqual(digest(presented), expected)) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid token');
      return { token: presented, clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + VALID_FOR_S };
    },
  };
}

/** The principal that owns a caller's state: the token's identity, or {@link ANONYMOUS} without a token. */
export function principalOf(authInfo: AuthInfo | undefined): string {
  return authInfo?.clientId ?? ANONYMOUS;
}
