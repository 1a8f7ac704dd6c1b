/**
 * The revocations this process has made: a counter every revocation (a key revoked, a merchant
 * disabled) moves on, through `keysRevoked()`. A verified key remembered under an older count is no
 * longer trusted (verified-keys.ts), so a key revoked in this process stops working on its next
 * request, without waiting for the cache's time bound.
 *
 * Module state on purpose, unlike the per-app guards: a revocation is the database's, not one app's,
 * and every app of the process must hear of it. Another process's revocations reach this one only
 * through the cache's time bound (docs/api.md "Authentication").
 */
let revocations = 0;

/** Call after a revocation committed (and, for one made in a transaction, again after its commit). */
export function keysRevoked(): void {
  revocations++;
}

/** The current count: what a verification started now is recorded under. */
export function revocationCount(): number {
  return revocations;
}
