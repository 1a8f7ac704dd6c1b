import { type ChainId, type Logger, ValidationError } from "@mp/core";
import { JsonRpcError } from "@mp/rpc";
import type { SenderFactoryOptions } from "@mp/treasury/ports";
import { type ChainSender, InsufficientTreasuryFundsError, type SendOrder } from "@mp/treasury/ports";
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js";
import bs58 from "bs58";
import { z } from "zod";
import { SLOT_SKIPPED_ERROR_CODES } from "../constants.ts";
import { verifySolanaNode } from "../node-capabilities.ts";
import { slotSchema } from "../rpc-schemas.ts";
import { resolveSolanaAssets, type SolanaAssets } from "../solana-assets.ts";
import {
  contextValue,
  createSolanaReads,
  FEE_LAMPORTS_PER_SIGNATURE,
  READ_COMMITMENT,
  TOKEN_ACCOUNT_SPACE,
  WALLET_SPACE,
} from "./solana-reads.ts";
import {
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotent,
  transferChecked,
} from "./token-instructions.ts";

/** The treasury's transactions carry one signature. */
const FEE_LAMPORTS = FEE_LAMPORTS_PER_SIGNATURE;
/**
 * Expiry is proven against `finalized` only (reads are at READ_COMMITMENT): a block at or below a
 * finalized height can no longer be replaced by a fork that holds our transaction, so "finalized
 * height > lastValidBlockHeight and the signature is nowhere" is final.
 */
const EXPIRY_COMMITMENT = "finalized";

const signatureStatusSchema = z.object({
  slot: slotSchema,
  err: z.unknown().nullable(),
  confirmationStatus: z.enum(["processed", "confirmed", "finalized"]).nullable().optional(),
});
const signatureStatusesSchema = contextValue(z.array(signatureStatusSchema.nullable()));
const blockHashSchema = z.object({ blockhash: z.string().min(32) });
/** agave's JSON_RPC_SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE: data is the simulation result. */
const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
/**
 * The TransactionError of a preflight failure's data (`{err, logs, ...}`): a unit variant is its
 * name ("AlreadyProcessed", "BlockhashNotFound"), others an object keyed by it; null when absent.
 */
function preflightError(data: unknown): string | null {
  const err = z.object({ err: z.unknown() }).safeParse(data);
  if (!err.success) return null;
  const value = err.data.err;
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") return Object.keys(value)[0] ?? null;
  return null;
}

const guardSchema = z.object({ blockhash: z.string().min(32), lastValidBlockHeight: z.number().int().nonnegative() });

/** What prepare() read for sign(): sign() makes no RPC call inside the pipeline's transaction. */
interface SolanaPrepared {
  blockhash: string;
  lastValidBlockHeight: number;
  /** The recipient has no associated token account for the mint yet: the transaction creates it. */
  createRecipientAccount: boolean;
  /** Lamports the treasury pays the recipient's new token account for rent (0 without one). */
  recipientRent: bigint;
}

/**
 * The Solana family's sender (@solana/web3.js; SPL instructions in token-instructions.ts): one treasury wallet
 * (TreasuryKeys.key("solana")), SOL by a System transfer and the configured SPL tokens by
 * transferChecked from the treasury's associated token account, creating the recipient's
 * associated token account (CreateIdempotent, paid by the treasury) when it has none.
 *
 * The replay guard is the recent blockhash: a signed transaction can only land up to its
 * `lastValidBlockHeight`, so the same signed bytes are rebroadcast (idempotent: one signature, one
 * landing) until that height is finalized without the signature anywhere; only then does status()
 * say `expired` and the pipeline ask for a new signature. There is no fee bump of a signed Solana
 * transaction, so replace() never makes one.
 */
export function createSolanaSender(options: SenderFactoryOptions): ChainSender {
  const { config } = options;
  const chain: ChainId = config.chain;
  if (chain !== "SOLANA") throw new ValidationError(`the Solana sender cannot send on ${chain}`, "chain");
  const logger: Logger = options.logger.child({ chain, component: "solana-sender" });
  const assets: SolanaAssets = resolveSolanaAssets(config);
  const key = options.keys.key("solana");
  const keypair = Keypair.fromSeed(key.privateKey);
  const treasury = keypair.publicKey;
  if (treasury.toBase58() !== key.address) throw new Error("the Solana treasury key does not match its address");
  const reads = createSolanaReads(config, options.fetch);
  const { rpc, lamportsOf, tokenUnitsOf, rentExemptMinimum } = reads;
  const read = { commitment: READ_COMMITMENT };

  const tokenOf = (asset: string) => [...assets.tokensByMint.values()].find((token) => token.asset === asset);

  const recipientOf = (order: SendOrder): PublicKey => {
    try {
      return new PublicKey(order.to);
    } catch {
      throw new ValidationError(`${order.to} is not a Solana address`, "to");
    }
  };

  /** Throws InsufficientTreasuryFundsError when `available` is short of `needed`. */
  const requireFunds = (asset: string, needed: bigint, available: bigint) => {
    if (available < needed) {
      throw new InsufficientTreasuryFundsError(
        `the SOLANA treasury holds ${available} of the ${needed} ${asset} base units this send needs`,
        { asset, needed: needed.toString(), available: available.toString() },
      );
    }
  };

  const blockHashAt = async (slot: number): Promise<string | null> => {
    const [outcome] = await rpc.batch([
      {
        method: "getBlock",
        params: [
          slot,
          {
            commitment: READ_COMMITMENT,
            encoding: "json",
            transactionDetails: "none",
            rewards: false,
            maxSupportedTransactionVersion: 0,
          },
        ],
      },
    ]);
    if (!outcome) return null;
    if (!outcome.ok) {
      // Skipped, or not that high yet (-32004): no block of ours there.
      if (SLOT_SKIPPED_ERROR_CODES.has(outcome.code) || outcome.code === -32004) return null;
      throw new JsonRpcError(rpc.label, "getBlock", outcome.code, outcome.message);
    }
    if (outcome.result === null) return null;
    return rpc.validated(blockHashSchema, outcome.result, `getBlock ${slot}`).blockhash;
  };

  return {
    chain,
    address: treasury.toBase58(),
    maxBatch: 1,
    // Never "stuck": a Solana transaction has no replacement with the same guard. While its status
    // is unknown the pipeline rebroadcasts the same bytes; status() ends it by proving expiry.
    stuckAfterBlocks: Number.MAX_SAFE_INTEGER,

    verifyNode: () => verifySolanaNode(rpc, chain),

    async head() {
      return rpc.validated(slotSchema, await rpc.call("getSlot", [read]), "getSlot");
    },

    blockHash: blockHashAt,

    async balances() {
      const result: Record<string, bigint> = { [assets.native.asset]: await lamportsOf(treasury) };
      for (const token of assets.tokensByMint.values()) {
        result[token.asset] = await tokenUnitsOf(associatedTokenAddress(new PublicKey(token.address), treasury));
      }
      return result;
    },

    async prepare(orders): Promise<SolanaPrepared> {
      const order = onlyOrder(orders);
      const to = recipientOf(order);
      const latest = await reads.latestBlockhash();
      const lamports = await lamportsOf(treasury);
      // The treasury wallet stays rent exempt: a payer left between 0 and the minimum fails the send.
      const spendable = lamports - (await rentExemptMinimum(WALLET_SPACE));

      if (order.asset === assets.native.asset) {
        if (to.equals(treasury)) throw new ValidationError("a SOLANA send to the treasury itself", "to");
        // A new wallet must be left rent exempt, else the transfer fails (InsufficientFundsForRent).
        const minimum = await rentExemptMinimum(WALLET_SPACE);
        if (order.amountRaw < minimum && (await lamportsOf(to)) === 0n) {
          throw new ValidationError(
            `${order.amountRaw} lamports cannot open the new account ${order.to}: at least ${minimum} are needed for rent`,
            "amount",
          );
        }
        requireFunds(order.asset, order.amountRaw + FEE_LAMPORTS, spendable);
        return { ...latest, createRecipientAccount: false, recipientRent: 0n };
      }

      const token = tokenOf(order.asset);
      if (!token) throw new ValidationError(`asset ${order.asset} is not configured on SOLANA`, "asset");
      const mint = new PublicKey(token.address);
      if (!PublicKey.isOnCurve(to.toBytes())) {
        throw new ValidationError(`${order.to} is not a wallet address (it has no private key)`, "to");
      }
      const held = await tokenUnitsOf(associatedTokenAddress(mint, treasury));
      requireFunds(order.asset, order.amountRaw, held);
      const createRecipientAccount = (await reads.accountLamports(associatedTokenAddress(mint, to))) === null;
      const rent = createRecipientAccount ? await rentExemptMinimum(TOKEN_ACCOUNT_SPACE) : 0n;
      requireFunds(assets.native.asset, FEE_LAMPORTS + rent, spendable);
      return { ...latest, createRecipientAccount, recipientRent: rent };
    },

    async sign(_tx, orders, prepared) {
      const order = onlyOrder(orders);
      const plan = prepared as SolanaPrepared;
      const to = recipientOf(order);
      const instructions: TransactionInstruction[] = [];
      if (order.asset === assets.native.asset) {
        instructions.push(SystemProgram.transfer({ fromPubkey: treasury, toPubkey: to, lamports: order.amountRaw }));
      } else {
        const token = tokenOf(order.asset);
        if (!token) throw new ValidationError(`asset ${order.asset} is not configured on SOLANA`, "asset");
        const mint = new PublicKey(token.address);
        const destination = associatedTokenAddress(mint, to);
        if (plan.createRecipientAccount) {
          instructions.push(createAssociatedTokenAccountIdempotent(treasury, destination, to, mint));
        }
        instructions.push(
          transferChecked(
            associatedTokenAddress(mint, treasury),
            mint,
            destination,
            treasury,
            order.amountRaw,
            token.decimals,
          ),
        );
      }
      const transaction = new Transaction({
        feePayer: treasury,
        blockhash: plan.blockhash,
        lastValidBlockHeight: plan.lastValidBlockHeight,
      }).add(...instructions);
      transaction.sign(keypair);
      const signature = transaction.signature;
      if (!signature) throw new Error("web3.js left the transaction unsigned");
      return {
        txHash: bs58.encode(signature),
        raw: transaction.serialize().toString("base64"),
        from: treasury.toBase58(),
        guard: { blockhash: plan.blockhash, lastValidBlockHeight: plan.lastValidBlockHeight },
        // The recipient's token account rent leaves the treasury too: reconcile counts it with the fee.
        fee: { lamports: FEE_LAMPORTS.toString(), rent_lamports: plan.recipientRent.toString() },
        orders: [{ id: order.id }],
      };
    },

    async broadcast(attempt) {
      const [outcome] = await rpc.batch([
        {
          method: "sendTransaction",
          params: [
            attempt.raw,
            // Preflight on: a transaction the node can already tell would fail is not sent (no fee
            // spent). maxRetries 0: the pipeline, not the RPC node, decides when to send again.
            { encoding: "base64", preflightCommitment: READ_COMMITMENT, maxRetries: 0 },
          ],
        },
      ]);
      if (!outcome || outcome.ok) return;
      if (outcome.code === SEND_TRANSACTION_PREFLIGHT_FAILURE) {
        // Preflight refused it now; the error's data is the simulation, its `err` the
        // TransactionError. AlreadyProcessed: it landed, which is success. Any other refusal
        // (blockhash no longer usable, funds moved, an account changed) cannot be cured by sending
        // the same bytes, and must not keep it "signed" forever: status() settles it, by finding it
        // or by proving its blockhash expired (then the pipeline signs anew).
        if (preflightError(outcome.data) !== "AlreadyProcessed") {
          logger.warn(
            { attempt: attempt.id, txHash: attempt.txHash, refusal: outcome.message },
            "the node refused to forward a Solana attempt; its status will settle it",
          );
        }
        return;
      }
      // Not a preflight verdict (bad signature, malformed, node trouble): the pipeline logs it and retries.
      throw new JsonRpcError(rpc.label, "sendTransaction", outcome.code, outcome.message);
    },

    async status(attempt) {
      const guard = guardSchema.parse(attempt.guard);
      // The finalized height first, the signature second: once every block up to lastValidBlockHeight
      // is final, a lookup made after that finds the transaction if it ever landed.
      const finalHeight = rpc.validated(
        slotSchema,
        await rpc.call("getBlockHeight", [{ commitment: EXPIRY_COMMITMENT }]),
        "getBlockHeight",
      );
      const answer = await rpc.call("getSignatureStatuses", [[attempt.txHash], { searchTransactionHistory: true }]);
      const [found] = rpc.validated(signatureStatusesSchema, answer, "getSignatureStatuses").value;
      if (found) {
        // Processed only: in a block no supermajority has voted on yet, which a fork may still drop.
        if (found.confirmationStatus === "processed") return { state: "pending" };
        const blockHash = await blockHashAt(found.slot);
        if (blockHash === null) return { state: "unknown" };
        if (found.err !== null && found.err !== undefined) {
          return { state: "failed", blockHeight: found.slot, blockHash, reason: JSON.stringify(found.err) };
        }
        return { state: "mined", blockHeight: found.slot, blockHash };
      }
      if (finalHeight > guard.lastValidBlockHeight) {
        return {
          state: "expired",
          reason: `blockhash ${guard.blockhash} expired: finalized block height ${finalHeight} is past its last valid height ${guard.lastValidBlockHeight} and ${attempt.txHash} is not on chain`,
        };
      }
      return { state: "unknown" };
    },

    async replace() {
      return null;
    },
  };
}

function onlyOrder(orders: readonly SendOrder[]): SendOrder {
  const [order] = orders;
  if (!order || orders.length !== 1) throw new Error(`a Solana transaction carries one send, not ${orders.length}`);
  return order;
}
