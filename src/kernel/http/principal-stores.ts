import { Session } from '../session/session';

/**
 * The stores of the 2026-07-28 era, one per principal (the token's identity, or `anonymous` on a
 * loopback server without a token). That era has no sessions: each request is served by a fresh server
 * instance over its principal's store, so handles and cursors outlive the request. Handle tables expire
 * idle entries themselves (closing files); there is one principal per configured token, so the stores
 * stay few and are ended only at shutdown.
 */
export class PrincipalStores {
  private readonly stores = new Map<string, Session>();

  /** `newSession`: makes a principal's store (the kernel's: on its clock). */
  constructor(private readonly newSession: () => Session = () => new Session()) {}

  of(principal: string): Session {
    let s = this.stores.get(principal);
    if (!s) {
      s = this.newSession();
      this.stores.set(principal, s);
    }
    return s;
  }

  endAll(): void {
    for (const s of this.stores.values()) s.end();
    this.stores.clear();
  }
}
