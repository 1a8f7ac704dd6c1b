/**
 * A `fetch` that stands between a sender (every family's sender takes `fetch`: the transport seam)
 * and its node, and injects the faults a node and the network between produce:
 * - `refused`: the request never reaches the node (connection refused);
 * - `lost-answer`: the node acts on the request (a broadcast lands in its mempool) but the answer
 *   never comes back (a timeout): the caller cannot tell whether it happened;
 * - `http-503`: the node (or a proxy in front of it) answers with a server error;
 * - `stale-receipt`: an EVM node answers a receipt read with null although the transaction may be in
 *   a block (anvil under load serves the block before its receipts): while faults are on, half the
 *   eth_getTransactionReceipt calls that got no other fault (drawn only there: no other family's
 *   draws move; a pass reads few receipts, so the fault rate alone would seldom reach one);
 * - `refused-for-good`: armed by `refuseNextBroadcast()`, the next broadcast of a transaction is
 *   refused by the node for good, in the family's own words (broadcast-refusals.ts), and those bytes
 *   stay refused on every link of the case.
 * Faults are drawn from a seeded generator, so a fuzz case replays them exactly from its seed.
 *
 * It also plays a process that stops mid-pass: `pauseAt(n)` holds the n-th call (before or after
 * it reaches the node) until `wake()` or `kill()`. Woken, the held call goes on as a process
 * resuming from a long pause would (a deposed leader waking up); killed, it and every later call fail,
 * as for a process that died there (whatever it then runs only talks to the database, where it is fenced).
 */

import type { BroadcastRecognizer } from "./broadcast-refusals.ts";

export type Fault = "refused" | "lost-answer" | "http-503";

export interface FaultCounts {
  calls: number;
  refused: number;
  "lost-answer": number;
  "http-503": number;
  "refused-for-good": number;
  "stale-receipt": number;
}

/** Fault counts at zero: where a link's count, or a sum of several links' counts, starts. */
export function noFaults(): FaultCounts {
  return { calls: 0, refused: 0, "lost-answer": 0, "http-503": 0, "refused-for-good": 0, "stale-receipt": 0 };
}

export interface FaultyFetch {
  readonly fetch: typeof globalThis.fetch;
  /** Probability (0..1) that a call gets a fault; 0 makes the node perfect. */
  setRate(rate: number): void;
  /** Holds the call `calls` from now (1 = the next), before it reaches the node or after it did. */
  pauseAt(calls: number, when: "before" | "after"): void;
  /** Whether a call is held now. */
  readonly paused: boolean;
  /** Lets the held call go on (it reaches the node if it had not yet). */
  wake(): void;
  /** The next broadcast of bytes not refused yet is refused for good (and those bytes ever after). */
  refuseNextBroadcast(): void;
  /** The process is gone: the held call and every later one fail without reaching the node. */
  kill(): void;
  readonly counts: FaultCounts;
}

/** mulberry32: a small seeded generator, enough to draw faults reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const FAULTS: readonly Fault[] = ["refused", "lost-answer", "http-503"];

function connectionRefused(): TypeError {
  const cause = Object.assign(new Error("connect ECONNREFUSED (fault injected)"), { code: "ECONNREFUSED" });
  return new TypeError("fetch failed", { cause });
}

/** The JSON-RPC answer "no receipt" to a single eth_getTransactionReceipt request, else null. */
function staleReceipt(init?: RequestInit): Response | null {
  if (typeof init?.body !== "string" || !init.body.includes('"eth_getTransactionReceipt"')) return null;
  const request = JSON.parse(init.body) as { id?: unknown; method?: unknown } | unknown[];
  if (Array.isArray(request) || request.method !== "eth_getTransactionReceipt") return null;
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: null }), {
    headers: { "content-type": "application/json" },
  });
}

function timedOut(): DOMException {
  return new DOMException("The operation was aborted due to timeout (fault injected)", "TimeoutError");
}

export function createFaultyFetch(options: {
  seed: number;
  rate?: number;
  inner?: typeof globalThis.fetch;
  /** How the family's node refuses a broadcast, and the bytes refused so far (shared by a case's links). */
  broadcasts?: { recognize: BroadcastRecognizer; refused: Set<string>; sent: Set<string> };
}): FaultyFetch {
  const random = seededRandom(options.seed);
  const inner = options.inner ?? globalThis.fetch;
  let rate = options.rate ?? 0;
  let dead = false;
  let pause: { remaining: number; when: "before" | "after" } | null = null;
  let held: { release: (go: boolean) => void } | null = null;
  let refuseNext = false;
  const counts = noFaults();

  /** The node's refusal of this request, when it is a broadcast of bytes refused for good (or to be). */
  const refusalOf = (input: string | URL | Request, init?: RequestInit): Response | null => {
    const b = options.broadcasts;
    if (!b || typeof init?.body !== "string") return null;
    const request = b.recognize(input instanceof Request ? input.url : String(input), init.body);
    if (!request) return null;
    if (!b.refused.has(request.key)) {
      // Bytes the node accepted once are never refused for good later (it answers that it has them).
      if (!refuseNext || b.sent.has(request.key)) {
        b.sent.add(request.key);
        return null;
      }
      refuseNext = false;
      b.refused.add(request.key);
    }
    counts["refused-for-good"]++;
    return request.refusal();
  };

  /** Waits while this call is the held one; false when the process was killed meanwhile. */
  const holdHere = (): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      held = { release: resolve };
    });

  const faulty = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (dead) throw connectionRefused();
    counts.calls++;
    let holdWhen: "before" | "after" | null = null;
    if (pause && --pause.remaining === 0) {
      holdWhen = pause.when;
      pause = null;
    }
    if (holdWhen === "before" && !(await holdHere())) throw connectionRefused();
    const refusal = refusalOf(input, init);
    if (refusal) return refusal;
    const fault = holdWhen === null && random() < rate ? (FAULTS[Math.floor(random() * FAULTS.length)] as Fault) : null;
    if (fault) counts[fault]++;
    if (fault === "refused") throw connectionRefused();
    if (fault === "http-503") return new Response("service unavailable (fault injected)", { status: 503 });
    const stale = fault === null && holdWhen === null ? staleReceipt(init) : null;
    if (stale && rate > 0 && random() < 0.5) {
      counts["stale-receipt"]++;
      return stale;
    }
    const { signal: _ignored, ...rest } = init ?? {};
    const answer = await inner(input, rest);
    // Read now: the node has acted, whatever happens to its answer on the way back.
    const text = await answer.text();
    if (fault === "lost-answer") throw timedOut();
    if (holdWhen === "after" && !(await holdHere())) throw timedOut();
    if (dead) throw timedOut();
    return new Response(text, { status: answer.status, headers: answer.headers });
  };

  return {
    fetch: faulty as typeof globalThis.fetch,
    setRate(r) {
      rate = r;
    },
    pauseAt(calls, when) {
      pause = { remaining: Math.max(1, calls), when };
    },
    refuseNextBroadcast() {
      refuseNext = true;
    },
    get paused() {
      return held !== null;
    },
    wake() {
      const h = held;
      held = null;
      h?.release(true);
    },
    kill() {
      dead = true;
      pause = null;
      const h = held;
      held = null;
      h?.release(false);
    },
    counts,
  };
}
