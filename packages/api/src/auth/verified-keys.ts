import type { AuthenticatedMerchant } from "./authenticated-merchant.ts";
import { revocationCount } from "./key-revocations.ts";

const VERIFIED_KEYS_MAX = 10_000;

/** How long a verified key is trusted without a lookup, unless told otherwise (AppDeps.apiKeyCache). */
export const API_KEY_CACHE_MS = 5_000;

interface Verified {
  merchant: AuthenticatedMerchant;
  /** When the lookup that verified it was sent (not answered: the conservative end). */
  at: number;
  /** revocationCount() when that lookup was sent. */
  revocations: number;
}

export interface VerifiedKeysOptions {
  /** How long a verified key is trusted without a lookup; 0 looks every key up on every request. */
  ttlMs?: number;
  /** Milliseconds on a monotonic clock (tests move their own). */
  now?: () => number;
}

/**
 * API keys this process has verified, by SHA-256 hash (never the key itself), with what their lookup
 * answered. A key verified less than `ttlMs` ago, with no revocation made by this process since the
 * lookup was sent, is trusted without a lookup: the lookup was the largest per-request cost of an
 * authenticated read next to bare Express (docs/benchmarks.md). So a key revoked, or its merchant
 * disabled, by another process (the CLI, another replica) keeps working here for at most `ttlMs`
 * after the commit; one revoked by this process stops at once (key-revocations.ts).
 *
 * An entry past its time is still a claim: a read may start on it while its lookup runs, and waits
 * for the lookup before answering (authenticateRequest). Unknown keys are never remembered.
 */
export class VerifiedKeys {
  private readonly byHash = new Map<string, Verified>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: VerifiedKeysOptions = {}) {
    this.ttlMs = options.ttlMs ?? API_KEY_CACHE_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** The key's merchant when it may be trusted without a lookup. */
  trusted(hash: string): AuthenticatedMerchant | undefined {
    const entry = this.byHash.get(hash);
    if (!entry || entry.revocations !== revocationCount()) return undefined;
    return this.now() - entry.at < this.ttlMs ? entry.merchant : undefined;
  }

  /** The merchant an earlier lookup answered for the key, however old: a claim to confirm. */
  claimed(hash: string): AuthenticatedMerchant | undefined {
    return this.byHash.get(hash)?.merchant;
  }

  /** Records a lookup's answer; `sent` is what `stamp()` said when that lookup was sent. */
  remember(hash: string, merchant: AuthenticatedMerchant, sent: { at: number; revocations: number }): void {
    // Bounded: past the limit it starts over (a miss only costs a lookup).
    if (this.byHash.size >= VERIFIED_KEYS_MAX) this.byHash.clear();
    this.byHash.set(hash, { merchant, ...sent });
  }

  /** The time and revocation count to record a lookup sent now under. */
  stamp(): { at: number; revocations: number } {
    return { at: this.now(), revocations: revocationCount() };
  }

  forget(hash: string): void {
    this.byHash.delete(hash);
  }
}
