import type { PaymentFlag, PaymentRequestStatus } from "./statuses.ts";

/** One accepted option: what the whole request costs in its asset (smallest units). */
export interface FigureOption {
  chain: string;
  asset: string;
  amountDue: bigint;
}

/** One deposit to the request's wallet, as the matcher reads it. */
export interface FigurePayment {
  chain: string;
  asset: string;
  amountRaw: bigint;
  status: "PENDING" | "CONFIRMED" | "REVERSED";
  held: boolean;
  /** When its transaction was first seen (the earliest deposit row of its identity). */
  seenAt: Date;
}

export interface FigureInput {
  /** In the request's currency, smallest units. */
  amount: bigint;
  expiresAt: Date;
  canceledAt: Date | null;
  options: readonly FigureOption[];
  payments: readonly FigurePayment[];
  now: Date;
}

export interface Figures {
  status: PaymentRequestStatus;
  /** Confirmed counted payments, in the request's currency (rounded down). */
  amountPaid: bigint;
  /** Seen, not yet confirmed, counted payments, in the request's currency (rounded down). */
  amountPending: bigint;
  /** What is still to be paid beyond what was seen, in the request's currency (rounded up). */
  amountMissing: bigint;
  /** Confirmed beyond the amount, in the request's currency (rounded down). */
  amountExcess: bigint;
  /** Per option (`chain:asset`): what is still to be paid in its asset, rounded up. */
  optionMissing: Map<string, bigint>;
  /** Per payment, in input order: why it does not count, or null (REVERSED ones: null, not counted). */
  flags: Array<PaymentFlag | null>;
}

export const optionKey = (o: { chain: string; asset: string }): string => `${o.chain}:${o.asset}`;

/** A non-negative exact fraction. */
interface Fraction {
  num: bigint;
  den: bigint;
}

/** sum(units_i / due_i) over the options paid, exactly (the denominator is the product of their dues). */
function paidFraction(paid: Map<string, bigint>, due: Map<string, bigint>): Fraction {
  let result: Fraction = { num: 0n, den: 1n };
  for (const [key, units] of paid) {
    const d = due.get(key);
    if (d === undefined || units === 0n) continue;
    result = { num: result.num * d + units * result.den, den: result.den * d };
  }
  return result;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** Why a payment does not count, or null when it does (REVERSED ones never count; their flag is null). */
function flagOf(payment: FigurePayment, accepted: Set<string>, cutoff: Date | null): PaymentFlag | null {
  if (!accepted.has(optionKey(payment))) return "not_accepted";
  if (cutoff !== null && payment.seenAt.getTime() >= cutoff.getTime()) return "late";
  if (payment.held) return "held";
  return null;
}

/**
 * The request's status and figures from its payments, exactly: each counted payment pays the
 * fraction amount_raw / amount_due of its option, so payments in several assets add up (a top-up
 * may use another asset). A payment counts when it is of an accepted option, was first seen before
 * the request ended (expiry, cancel) and is not held; a REVERSED one (a reorganisation) never counts.
 *   canceled                       -> canceled (terminal; later money is flagged late)
 *   confirmed >= 1                 -> paid, or overpaid when the excess is a smallest unit or more
 *   else anything pending          -> processing (even past expiry: it was seen in time)
 *   else past expires_at           -> expired
 *   else confirmed > 0             -> underpaid
 *   else                           -> open
 */
export function requestFigures(input: FigureInput): Figures {
  const due = new Map(input.options.map((o) => [optionKey(o), o.amountDue]));
  const accepted = new Set(due.keys());
  const ended = [input.canceledAt, input.expiresAt].filter((d): d is Date => d !== null);
  const cutoff = ended.length > 0 ? new Date(Math.min(...ended.map((d) => d.getTime()))) : null;
  const confirmed = new Map<string, bigint>();
  const pending = new Map<string, bigint>();
  const flags = input.payments.map((payment) => {
    if (payment.status === "REVERSED") return null;
    const flag = flagOf(payment, accepted, cutoff);
    if (flag === null) {
      const into = payment.status === "CONFIRMED" ? confirmed : pending;
      const key = optionKey(payment);
      into.set(key, (into.get(key) ?? 0n) + payment.amountRaw);
    }
    return flag;
  });
  const c = paidFraction(confirmed, due);
  const p = paidFraction(pending, due);
  const amountPaid = (input.amount * c.num) / c.den;
  const amountPending = (input.amount * p.num) / p.den;
  // What is left after everything seen: 1 - c - p, over c.den * p.den.
  const den = c.den * p.den;
  const left = den - c.num * p.den - p.num * c.den;
  const optionMissing = new Map<string, bigint>();
  for (const [key, d] of due) optionMissing.set(key, left > 0n ? ceilDiv(d * left, den) : 0n);
  const excess = c.num > c.den ? (input.amount * (c.num - c.den)) / c.den : 0n;
  let status: PaymentRequestStatus;
  if (input.canceledAt !== null) status = "canceled";
  // Beyond the amount by less than its smallest unit (a top-up of what the page asked, rounded up
  // to the asset's unit, in another asset) is paid, not overpaid.
  else if (c.num >= c.den) status = excess > 0n ? "overpaid" : "paid";
  else if (p.num > 0n) status = "processing";
  else if (input.now.getTime() >= input.expiresAt.getTime()) status = "expired";
  else if (c.num > 0n) status = "underpaid";
  else status = "open";
  return {
    status,
    amountPaid,
    amountPending,
    amountMissing: left > 0n ? ceilDiv(input.amount * left, den) : 0n,
    amountExcess: excess,
    optionMissing,
    flags,
  };
}
