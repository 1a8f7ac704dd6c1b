import { AppError, type ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";

/**
 * The contract between the one send pipeline (packages/treasury/src/send-pipeline.ts: store, lease,
 * broadcast, confirmations, reorgs, replacements) and a chain family's sender
 * (packages/treasury/src/<family>/). A family knows how to build, sign, broadcast and look up its
 * transactions; the pipeline decides when, and stores every signed attempt before it is broadcast.
 *
 * The order of calls for a queued send, all made by the chain's one leading signer:
 *   prepare(orders)                      outside any transaction: fees, blockhash, energy, funds
 *   sign(tx, orders, prepared)           inside the pipeline's transaction: allocate the replay guard
 *                                        (EVM nonce row, Bitcoin inputs) and sign; the pipeline then
 *                                        inserts the attempt in the same transaction and commits
 *   broadcast(attempt)                   after the commit; again after a crash (must be idempotent:
 *                                        "already known" is success)
 *   status(attempt)                      until mined with enough confirmations; then again to see
 *                                        that its block is still canonical (reorgs); reads only
 *   recordStatus(tx, attempt, status)    the family's own records of a new state, in the pipeline's
 *                                        fenced transaction that records the state
 *   replace(tx, attempt, orders)         when it is stuck: same guard, higher fee (EVM, Bitcoin RBF)
 * A Solana or Tron attempt that status() proves `expired` is signed again through sign(): only then.
 */

/** One queued send as the family sees it (treasury_sends). */
export interface SendOrder {
  id: string;
  chain: ChainId;
  /** Asset symbol of the chain config (USDC, ETH, BTC, SOL, TRX ...). */
  asset: string;
  to: string;
  amountRaw: bigint;
  /** The node refused a batch it was in: signed in a transaction of its own (the pipeline's rule, unseen by senders). */
  alone?: boolean;
}

/** A signed transaction, as the pipeline stores it (treasury_attempts) before broadcasting it. */
export interface SignedAttempt {
  txHash: string;
  /** Exactly what broadcast() takes: hex (EVM, Bitcoin), base64 (Solana), JSON (Tron). */
  raw: string;
  from: string;
  /** The replay guard: {nonce} | {inputs:[{txid,vout}]} | {blockhash,lastValidBlockHeight} | {expiration,...}. */
  guard: Record<string, unknown>;
  /** What it offers to pay: {maxFeePerGas, maxPriorityFeePerGas} | {gasPrice} | {feeRate, fee} | {feeLimit}. */
  fee: Record<string, unknown>;
  /** The orders it pays; outputIndex where the transaction has one output per order (Bitcoin). */
  orders: Array<{ id: string; outputIndex?: number }>;
}

export type AttemptState = "signed" | "broadcast" | "mined" | "replaced" | "expired" | "failed";

/** An attempt as stored. */
export interface StoredAttempt extends SignedAttempt {
  id: string;
  chain: ChainId;
  state: AttemptState;
  /** The attempt this one replaces (fee bump, re-sign after expiry), if any. */
  replaces: string | null;
  blockHeight: number | null;
  blockHash: string | null;
  createdAt: Date;
  broadcastAt: Date | null;
}

/** What the node says of an attempt now. */
export type AttemptStatus =
  /** The node does not know it (not propagated yet, or dropped from the mempool). */
  | { state: "unknown" }
  /** In the mempool, not in a block. */
  | { state: "pending" }
  /** In block `blockHeight`, and it did what it should. */
  | { state: "mined"; blockHeight: number; blockHash: string }
  /** In a block but it failed (EVM revert, Tron OUT_OF_ENERGY): a fee may be spent, the value is not. */
  | { state: "failed"; blockHeight: number; blockHash: string; reason: string }
  /** Proven never to land: Solana blockhash past lastValidBlockHeight and not found, Tron expiration passed, EVM nonce used by another transaction. */
  | { state: "expired"; reason: string };

/** The treasury cannot cover an order yet: it waits (state waiting_funds), nothing is signed. */
export class InsufficientTreasuryFundsError extends AppError {
  constructor(message: string, details: { asset: string; needed: string; available: string }) {
    super("insufficient_treasury_funds", message, { retryable: true, details });
  }
}

/**
 * The node refused the attempt for good (EVM: intrinsic gas too low, an invalid transaction): it
 * can never land as signed, so rebroadcasting or bumping its fee would only hold its guard forever.
 */
export class BroadcastRefusedError extends Error {
  readonly code = "broadcast_refused";
  constructor(
    message: string,
    readonly txHash: string,
  ) {
    super(message);
    this.name = "BroadcastRefusedError";
  }
}

export interface ChainSender {
  readonly chain: ChainId;
  /** The treasury address it signs for (Bitcoin: the receive address; change goes elsewhere). */
  readonly address: string;
  /** Orders one transaction may carry: Bitcoin batches queued sends, the others send one each. */
  readonly maxBatch: number;
  /**
   * Chain transactions the pipeline may prepare() before the first of them is stored: it then signs
   * and stores them in one database transaction (each with its own guard). Default 1. More only
   * when prepare() itself counts the orders it prepared that are not stored yet (funds, inputs):
   * the EVM sender does, a sender that reads what it must not reuse from the database does not.
   * The sign() calls of such a chunk are issued at once, in order, on the one transaction (their
   * statements pipelined): sign() must allocate its guard with its first statement, so guards
   * follow the order of issue (EVM: the nonce UPDATE). Their broadcasts are issued at once too, in
   * order, so a sender may send them in one request (EVM: a JSON-RPC batch).
   */
  readonly preparesAhead?: number;
  /** Blocks (slots) a broadcast attempt may stay unmined before replace() is asked for one. */
  readonly stuckAfterBlocks: number;
  /**
   * Attempts from one address land in the order of their guards (EVM nonces): the stuck clock of
   * one also restarts at each landing from its address, since it waits behind them, not on its fee.
   */
  readonly landsInGuardOrder?: boolean;
  /**
   * Checked once when the signer starts: the node offers what this sender cannot work without
   * (docs/chains.md "Node requirements"); throws ChainMisconfiguredError naming the missing capability.
   */
  verifyNode?(): Promise<void>;
  /** The node's head height (confirmations count from it). */
  head(): Promise<number>;
  /** The canonical block hash at a height, null when the chain is not that high (reorg checks). */
  blockHash(height: number): Promise<string | null>;
  /** What the treasury holds of each configured asset now, in smallest units. */
  balances(): Promise<Record<string, bigint>>;
  /**
   * Reads what signing needs (fees, blockhash, energy estimate) and checks funds, outside any
   * transaction; throws InsufficientTreasuryFundsError when the treasury cannot cover the orders.
   * Returns whatever sign() needs, opaque to the pipeline.
   */
  prepare(orders: SendOrder[]): Promise<unknown>;
  /** Allocates the replay guard inside `tx` and signs. Never broadcasts. */
  sign(tx: Queryable, orders: SendOrder[], prepared: unknown): Promise<SignedAttempt>;
  /** Sends the stored raw transaction; idempotent (a node that already has it is success). */
  broadcast(attempt: StoredAttempt): Promise<void>;
  /** What the node says of the attempt now. Reads only: a sender's own records follow in recordStatus. */
  status(attempt: StoredAttempt): Promise<AttemptStatus>;
  /**
   * The sender's own bookkeeping of a status the pipeline records (Bitcoin: the coins the attempt
   * spent and its change, in a block or not), written in the pipeline's fenced transaction `tx`
   * with the attempt's new state: a deposed signer changes nothing. Called when the attempt is
   * recorded mined in a (new) block, and when it leaves its block or expires.
   */
  recordStatus?(tx: Queryable, attempt: StoredAttempt, status: AttemptStatus): Promise<void>;
  /** A replacement of a stuck attempt with the same guard and higher fees, or null when there is none to make. */
  replace(tx: Queryable, attempt: StoredAttempt, orders: SendOrder[]): Promise<SignedAttempt | null>;
  /**
   * After the node refused `attempt` for good (BroadcastRefusedError): a transaction that uses its
   * guard and moves nothing, so the guards after it can land (EVM: a zero-value transfer to itself
   * at the refused nonce; its guard names the attempt it fills). Null when there is none to make.
   * Families whose guard a refused attempt does not hold (Bitcoin, Solana, Tron) have none.
   */
  fill?(tx: Queryable, attempt: StoredAttempt): Promise<SignedAttempt | null>;
}
