import { type AddressMatcher, type ChainId, ChainMisconfiguredError, type EvmTraceMethod } from "@mp/core";
import { getAddress, numberToHex } from "viem";
import { z } from "zod";
import type { EvmAssets } from "./evm-assets.ts";
import type { RpcCall } from "./evm-rpc-client.ts";
import { validated } from "./evm-rpc-client.ts";
import { chainMoved, EvmRpcError } from "./rpc-failure.ts";
import { address, bigintQuantity, type FullBlock, hash32 } from "./rpc-schemas.ts";
import type { SortableTransfer } from "./sortable-transfer.ts";

/**
 * Native coin moved by contracts (internal calls): what a Safe, an ERC-4337 account or an
 * exchange's payout contract sends never appears as a transaction's own value, only in a trace.
 * Read when the chain's `traces` setting names the node's block-trace method:
 *
 * - `trace_block` (parity style: Erigon, Nethermind, Reth, anvil): a flat list of frames, each with
 *   its `traceAddress` (the path of child indexes from the transaction's root call) and `error`;
 * - `debug_traceBlockByNumber` with geth's `callTracer` (geth, anvil): a tree per transaction.
 *
 * A frame counts when it moves value (CALL, or SELFDESTRUCT to a beneficiary; DELEGATECALL,
 * STATICCALL and CALLCODE move none to another account; a created contract is never one of our
 * addresses) to a watched address, with value > 0 and from another address, and neither it nor
 * any frame above it failed: a reverted frame undoes everything under it, even the calls that
 * succeeded inside it. The root frame (the transaction itself) is left out: its value is the
 * native path's (receipt-checked), so nothing is counted twice. Position `trace:<path>`, e.g.
 * `trace:0.1` (the second call of the first call): the same in both formats and at every rescan.
 */

/** The request tracing block `height` with `method`. */
export function traceBlockCall(method: Exclude<EvmTraceMethod, "off">, height: number): RpcCall {
  return method === "trace_block"
    ? { method, params: [numberToHex(height)] }
    : { method, params: [numberToHex(height), { tracer: "callTracer" }] };
}

/**
 * A node that does not offer the configured trace method (JSON-RPC -32601 "method not found", or
 * a provider's "not supported"/"not available" for it) will never trace: the `traces` setting is
 * wrong for this node, so the chain stops with a clear error instead of retrying forever.
 */
export function traceMethodMissing(
  error: unknown,
  chain: ChainId,
  method: Exclude<EvmTraceMethod, "off">,
): ChainMisconfiguredError | undefined {
  if (!(error instanceof EvmRpcError) || error.failure.reason !== "rpc-error") return undefined;
  const { rpcCode, message } = error.failure;
  if (rpcCode !== -32601 && rpcCode !== -32004 && !METHOD_MISSING.test(message)) return undefined;
  return new ChainMisconfiguredError(
    `CHAINS_CONFIG ${chain}.traces is "${method}" but the node does not offer it (${message}); set "off" or another method`,
    { details: { chain, setting: "traces", method } },
  );
}

const METHOD_MISSING = /method .*(not (found|supported|available|allowed|enabled)|does not exist)|unsupported method/i;

/** One frame of trace_block (only the fields read; a `reward` frame has no transaction). */
const parityFrameSchema = z.object({
  type: z.string(),
  action: z.object({
    callType: z.string().optional(),
    from: address.optional(),
    to: address.optional(),
    value: bigintQuantity.optional(),
    /** suicide: the destroyed contract, its beneficiary and the balance it received. */
    address: address.optional(),
    refundAddress: address.optional(),
    balance: bigintQuantity.optional(),
  }),
  error: z.string().optional(),
  traceAddress: z.array(z.number().int().nonnegative()),
  blockHash: hash32,
  transactionHash: hash32.nullish(),
  transactionPosition: z.number().int().nonnegative().nullish(),
});
type ParityFrame = z.output<typeof parityFrameSchema>;

/** One frame of geth's callTracer. */
interface CallFrame {
  type: string;
  from?: string | undefined;
  to?: string | undefined;
  value?: bigint | undefined;
  error?: string | undefined;
  calls?: CallFrame[] | undefined;
}
const callFrameSchema: z.ZodType<CallFrame, unknown> = z.lazy(() =>
  z.object({
    type: z.string(),
    from: address.optional(),
    to: address.optional(),
    value: bigintQuantity.optional(),
    error: z.string().optional(),
    calls: z.array(callFrameSchema).optional(),
  }),
);
const callTracerSchema = z.array(z.object({ txHash: hash32.optional(), result: callFrameSchema }));

/** An internal value transfer before matching: who paid whom, where in which transaction. */
interface InternalPayment {
  transactionIndex: number;
  path: readonly number[];
  from: string;
  to: string;
  value: bigint;
}

/** The internal payments to watched addresses in `answer`, the trace of `block` by `method`. */
export function traceTransfers(
  method: Exclude<EvmTraceMethod, "off">,
  answer: unknown,
  block: FullBlock,
  assets: EvmAssets,
  watch: AddressMatcher,
): SortableTransfer[] {
  const payments = method === "trace_block" ? parityPayments(answer, block) : callTracerPayments(answer, block);
  const transfers: SortableTransfer[] = [];
  for (const payment of payments) {
    if (payment.value === 0n || payment.from === payment.to || !watch.has(payment.to)) continue;
    const tx = block.transactions[payment.transactionIndex];
    if (!tx) throw chainMoved(`trace of block ${block.number} names transaction ${payment.transactionIndex}`);
    transfers.push({
      transactionIndex: payment.transactionIndex,
      logIndex: null,
      transfer: {
        txHash: tx.hash,
        position: `trace:${payment.path.join(".")}`,
        blockHeight: block.number,
        blockHash: block.hash,
        from: getAddress(payment.from),
        to: getAddress(payment.to),
        asset: assets.native.asset,
        contractAddress: null,
        amountRaw: payment.value,
        decimals: assets.native.decimals,
      },
    });
  }
  return transfers;
}

function parityPayments(answer: unknown, block: FullBlock): InternalPayment[] {
  const frames = validated(z.array(parityFrameSchema), answer, "trace_block", `trace of block ${block.number}`);
  const payments: InternalPayment[] = [];
  /** Per transaction, the paths of the frames that failed (parents come before their children). */
  const failed = new Map<number, Set<string>>();
  for (const frame of frames) {
    if (frame.blockHash !== block.hash) throw chainMoved(`trace of block ${block.number} is of another block`);
    if (frame.transactionPosition == null) continue; // block and uncle rewards
    const index = frame.transactionPosition;
    if (block.transactions[index]?.hash !== frame.transactionHash) {
      throw chainMoved(`trace of block ${block.number}: transaction ${index} differs`);
    }
    const failures = failed.get(index) ?? new Set<string>();
    failed.set(index, failures);
    const path = frame.traceAddress;
    if (frame.error !== undefined) failures.add(path.join("."));
    if (path.length === 0) continue; // the transaction itself: the native path's
    const undone = Array.from({ length: path.length + 1 }, (_, depth) => path.slice(0, depth).join("."));
    if (undone.some((ancestorOrSelf) => failures.has(ancestorOrSelf))) continue;
    const moved = parityValue(frame);
    if (moved) payments.push({ transactionIndex: index, path, ...moved });
  }
  return payments;
}

function parityValue(frame: ParityFrame): { from: string; to: string; value: bigint } | undefined {
  const { action } = frame;
  if (frame.type === "call" && action.callType === "call" && action.from && action.to) {
    return { from: action.from, to: action.to, value: action.value ?? 0n };
  }
  if (frame.type === "suicide" && action.address && action.refundAddress) {
    return { from: action.address, to: action.refundAddress, value: action.balance ?? 0n };
  }
  return undefined;
}

function callTracerPayments(answer: unknown, block: FullBlock): InternalPayment[] {
  const traces = validated(callTracerSchema, answer, "debug_traceBlockByNumber", `trace of block ${block.number}`);
  if (traces.length !== block.transactions.length) {
    throw chainMoved(
      `trace of block ${block.number} has ${traces.length} transactions, the block ${block.transactions.length}`,
    );
  }
  const payments: InternalPayment[] = [];
  traces.forEach((trace, transactionIndex) => {
    if (trace.txHash !== undefined && trace.txHash !== block.transactions[transactionIndex]?.hash) {
      throw chainMoved(`trace of block ${block.number}: transaction ${transactionIndex} differs`);
    }
    const walk = (frame: CallFrame, path: number[]) => {
      if (frame.error !== undefined) return; // undone, with everything under it
      if (path.length > 0 && (frame.type === "CALL" || frame.type === "SELFDESTRUCT") && frame.from && frame.to) {
        payments.push({ transactionIndex, path, from: frame.from, to: frame.to, value: frame.value ?? 0n });
      }
      frame.calls?.forEach((child, i) => {
        walk(child, [...path, i]);
      });
    };
    walk(trace.result, []);
  });
  return payments;
}
