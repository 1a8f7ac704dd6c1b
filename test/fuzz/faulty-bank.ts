import { ServiceUnavailableError } from "@mp/core";
import { type BankingProvider, type BankPayoutRequest, createSandboxBankingProvider } from "@mp/providers";
import { deferred } from "../support/deferred.ts";
import { seededRandom } from "./faulty-fetch.ts";

/**
 * The bank of the bank-returns fault search: the sandbox bank (stateless, keyed by the payout id,
 * its payouts timed from the request on the case's clock) behind a link that injects what a real
 * bank's API does, drawn from a seeded generator so a case replays them from its seed:
 * - `refused`: the call never reaches the bank (connection refused, HTTP 503): nothing happened;
 * - `timeout`: no answer in time: the bank may have acted on it or not (one in two);
 * - `lost`: the bank acted (a payout is accepted) but its answer never arrives.
 * It also plays a worker that dies right after the bank answered (`dieAfterAnswer`), one whose
 * answer is slow to come back (`holdNext`: the bank has acted, its answer waits until released),
 * and the payer's bank sending a paid payout back (`sendBack`: RETURNED from then on).
 *
 * Its record is the bank's own: every payout it accepted, by key, with what it was asked to pay
 * (a second request under a key it knows is the same payout, as with every real bank's idempotency
 * key). The invariants count payments there, not in our database.
 */
export interface BankPayoutRecord {
  payoutId: string;
  amount: string;
  account: string;
  routingNumber: string;
  /** How often it was asked under this key (a repeat is the same payout). */
  requests: number;
  /** Requests under this key that named another amount or account than the first: never allowed. */
  mismatches: number;
  /** The provider's id of it, to ask the sandbox where it is. */
  providerPayoutId: string;
}

export interface BankFaultCounts {
  calls: number;
  refused: number;
  timeouts: number;
  lost: number;
}

export interface FaultyBank {
  readonly provider: BankingProvider;
  /** Probability (0..1) that a call gets a fault; 0 makes the bank perfect. */
  setRate(rate: number): void;
  /** Calls `die` once the next sendPayout has reached the bank and answered (before its caller sees it). */
  dieAfterAnswer(die: () => void): void;
  /**
   * The next call reaches the bank (which acts on it) and its answer is held: `reached` resolves then,
   * with the payout's key, and the caller gets the answer once `release` is called. `cancel` drops
   * the hold if no call came (and releases one that did).
   */
  holdNext(): { reached: Promise<string>; release(): void; cancel(): void };
  /** Every payout the bank accepted, by key. */
  readonly payouts: ReadonlyMap<string, BankPayoutRecord>;
  /** Where the bank says `payoutId` is now (undefined: it never accepted it). */
  statusOf(payoutId: string): Promise<string | undefined>;
  /**
   * The payer's bank sends payout `payoutId` back after the bank paid it: from now on the bank
   * answers RETURNED (R01) about it. False when it is not a payout the bank completed.
   */
  sendBack(payoutId: string): Promise<boolean>;
  /** The payouts sent back (sendBack), by key. */
  readonly sentBack: ReadonlySet<string>;
  readonly counts: BankFaultCounts;
}

export function createFaultyBank(options: { seed: number; payoutDelayMs: number; now: () => Date }): FaultyBank {
  const bank = createSandboxBankingProvider({ payoutDelayMs: options.payoutDelayMs, now: options.now });
  const random = seededRandom(options.seed);
  const payouts = new Map<string, BankPayoutRecord>();
  const counts: BankFaultCounts = { calls: 0, refused: 0, timeouts: 0, lost: 0 };
  let rate = 0;
  let die: (() => void) | undefined;
  let hold: { reached: (payoutId: string) => void; released: Promise<void> } | undefined;
  const sentBack = new Set<string>();
  /** The sandbox's answer, RETURNED once the payer's bank sent a completed payout back. */
  const statusOfProvider = async (providerPayoutId: string) => {
    const status = await bank.getPayoutStatus(providerPayoutId);
    const known = [...payouts.values()].find((p) => p.providerPayoutId === providerPayoutId);
    return known && sentBack.has(known.payoutId) && status.status === "COMPLETED"
      ? { status: "RETURNED" as const, reason: "returned by the bank: R01 Insufficient funds (fuzz)" }
      : status;
  };
  /** A held call about `payoutId` waits here, after the bank acted, before its caller sees the answer. */
  const slowAnswer = async (payoutId: string) => {
    const held = hold;
    hold = undefined;
    if (!held) return;
    held.reached(payoutId);
    await held.released;
  };

  type Fault = "refused" | "timeout" | "lost" | undefined;
  const draw = (): Fault => {
    counts.calls++;
    if (random() >= rate) return undefined;
    const r = random();
    return r < 1 / 3 ? "refused" : r < 2 / 3 ? "timeout" : "lost";
  };
  const record = (request: BankPayoutRequest, providerPayoutId: string) => {
    const known = payouts.get(request.payoutId);
    const { accountNumber, routingNumber } = request.creditor;
    if (!known) {
      payouts.set(request.payoutId, {
        payoutId: request.payoutId,
        amount: request.amount,
        account: accountNumber,
        routingNumber,
        requests: 1,
        mismatches: 0,
        providerPayoutId,
      });
      return;
    }
    known.requests++;
    if (known.amount !== request.amount || known.account !== accountNumber || known.routingNumber !== routingNumber) {
      known.mismatches++;
    }
  };
  const fail = (fault: Exclude<Fault, undefined>): never => {
    if (fault === "refused") {
      counts.refused++;
      throw new ServiceUnavailableError("the bank refused the connection (fault injected)");
    }
    if (fault === "timeout") {
      counts.timeouts++;
      throw new ServiceUnavailableError("the bank did not answer in time (fault injected)");
    }
    counts.lost++;
    throw new ServiceUnavailableError("the bank's answer was lost (fault injected)");
  };

  const provider: BankingProvider = {
    name: "fuzz-bank",
    openAccount: (request) => bank.openAccount(request),
    getAccountStatus: (id) => bank.getAccountStatus(id),
    async sendPayout(request) {
      const fault = draw();
      if (fault === "refused") fail(fault);
      // A timeout reached the bank one time in two; a lost answer always did.
      const reaches = fault === undefined || fault === "lost" || random() < 0.5;
      if (!reaches) fail("timeout");
      const answer = await bank.sendPayout(request);
      record(request, answer.providerPayoutId);
      if (die) {
        const dying = die;
        die = undefined;
        dying();
      }
      await slowAnswer(request.payoutId);
      if (fault) fail(fault);
      // A repeated request (same key) is answered with the payout as it is now, as a bank does: RETURNED
      // once its payer's bank sent it back (the sandbox alone would still say COMPLETED).
      return sentBack.has(request.payoutId)
        ? { ...answer, status: await statusOfProvider(answer.providerPayoutId) }
        : answer;
    },
    async getPayoutStatus(providerPayoutId) {
      const fault = draw();
      // Asking changes nothing at the bank: any fault is only an answer that does not come.
      if (fault) fail(fault);
      const status = await statusOfProvider(providerPayoutId);
      const known = [...payouts.values()].find((p) => p.providerPayoutId === providerPayoutId);
      await slowAnswer(known?.payoutId ?? providerPayoutId);
      return status;
    },
  };
  return {
    provider,
    setRate(r) {
      rate = r;
    },
    dieAfterAnswer(fn) {
      die = fn;
    },
    holdNext() {
      const { promise: reachedP, resolve: reached } = deferred<string>();
      const { promise: released, resolve: release } = deferred();
      hold = { reached, released };
      return {
        reached: reachedP,
        release,
        cancel: () => {
          hold = undefined;
          release();
        },
      };
    },
    payouts,
    async statusOf(payoutId) {
      const known = payouts.get(payoutId);
      return known ? (await statusOfProvider(known.providerPayoutId)).status : undefined;
    },
    async sendBack(payoutId) {
      const known = payouts.get(payoutId);
      if (!known || (await bank.getPayoutStatus(known.providerPayoutId)).status !== "COMPLETED") return false;
      sentBack.add(payoutId);
      return true;
    },
    sentBack,
    counts,
  };
}
