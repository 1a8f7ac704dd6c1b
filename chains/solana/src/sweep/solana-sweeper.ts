import { type ChainConfig, mapBounded, ValidationError } from "@mp/core";
import type { ChainSender, LeasedChainLoop, SignedAttempt } from "@mp/treasury/ports";
import {
  broadcastStored,
  ChainSweepPass,
  createSweeperLoop,
  finishSettledSweeps,
  insertAttempt,
  insertSweep,
  isolatedStep,
  justStored,
  listReadySweeps,
  listRequeuedSweeps,
  listSweepCandidates,
  listTreasuryAccountOpeners,
  lockSignable,
  noteSweepWaiting,
  type OpenSweep,
  refuseForeignDepositKey,
  type SweepCandidate,
  type SweeperOptions,
  setSweepRent,
  startSweepSend,
  sweepThreshold,
} from "@mp/treasury/ports";
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js";
import bs58 from "bs58";
import {
  createSolanaReads,
  FEE_LAMPORTS_PER_SIGNATURE,
  type SolanaReads,
  TOKEN_ACCOUNT_SPACE,
  WALLET_SPACE,
} from "../send/solana-reads.ts";
import { createSolanaSender } from "../send/solana-sender.ts";
import {
  associatedTokenAddress,
  closeAccount,
  createAssociatedTokenAccountIdempotent,
  transferChecked,
} from "../send/token-instructions.ts";
import { resolveSolanaAssets, type SolanaAssets } from "../solana-assets.ts";
import { solanaSendCheck } from "../solana-send-check.ts";

export interface SolanaSweeperOptions extends Omit<SweeperOptions, "chains" | "onReady"> {
  /** The SOLANA chain config (RPC, tokens). */
  chain: ChainConfig;
  /** Tests: called once a sweep's attempt is stored and before it is broadcast. */
  onStored?: (sweepId: string) => void;
}

/** tick("SOLANA"): one pass (lease `sweeper:SOLANA`): settle, sign again what expired, sign the ready, open new sweeps. */
export type SolanaSweeper = LeasedChainLoop;

/** Addresses looked at per pass: the rest waits for the next one. */
const SWEEPS_PER_TICK = 2_000;
/** RPC look-ups (and signings) in flight at once. */
const CONCURRENCY = 16;
/** A sweep carries two signatures: the treasury's (fee payer) and the deposit key's (owner of what moves). */
const SWEEP_FEE_LAMPORTS = 2n * FEE_LAMPORTS_PER_SIGNATURE;

/**
 * The Solana sweeper (issue 14 "Sweeps"), run by the signer. A deposit address holding confirmed,
 * not yet swept deposits of an asset at or above its threshold is swept into the treasury by one
 * transaction whose fee payer is the treasury (a deposit address never needs SOL of its own):
 *
 *   token: transferChecked of the deposit address's associated token account into the treasury's
 *          (opened in the same transaction, CreateIdempotent, when the treasury has none), then
 *          CloseAccount of the emptied deposit account: its rent goes to the treasury wallet. A
 *          token account still holding more than the sweep moves (a deposit not confirmed yet) is
 *          left open, and the next sweep closes it.
 *   SOL:   a System transfer of the deposited lamports from the deposit address to the treasury.
 *
 * Both the treasury key and the deposit key sign. The transaction is a treasury send from the
 * deposit address (purpose sweep), stored with its blockhash guard (insertAttempt) before it is
 * broadcast; the send pipeline broadcasts it again after a crash, confirms it and watches it for
 * reorgs. When the pipeline proves the blockhash expired it puts the send back to `queued`, which
 * it never signs itself (it has no deposit key): this sweeper signs it again, once (lockSignable).
 * Nothing here touches the ledger; treasury_sweeps is the custody record (covered, amount, the rent
 * reclaimed and paid, the fee the treasury paid), which `payments reconcile chains` reads.
 */
export function createSolanaSweeper(options: SolanaSweeperOptions): SolanaSweeper {
  const { db, logger } = options;
  if (options.chain.chain !== "SOLANA") {
    throw new ValidationError(`the Solana sweeper cannot sweep ${options.chain.chain}`, "chain");
  }
  const key = options.treasuryKeys.key("solana");
  const treasury = Keypair.fromSeed(key.privateKey);
  if (treasury.publicKey.toBase58() !== key.address)
    throw new Error("the Solana treasury key does not match its address");
  const runtime: SweepRuntime = {
    assets: resolveSolanaAssets(options.chain),
    reads: createSolanaReads(options.chain, options.fetch),
    treasury,
    // Broadcasting a stored attempt is the sender's (the same sendTransaction and refusal handling as the pipeline's).
    broadcaster: createSolanaSender({
      config: options.chain,
      keys: options.treasuryKeys,
      db,
      logger,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    }),
  };
  const passOptions: SolanaPassOptions = { ...options, chains: [options.chain] };
  return createSweeperLoop(passOptions, (run) => new SolanaSweepPass(runtime, key.address, passOptions, run).run());
}

/** The sweeper's options as the shared sweeper loop and pass take them (one chain: SOLANA). */
type SolanaPassOptions = SolanaSweeperOptions & Pick<SweeperOptions, "chains">;

interface SweepRuntime {
  assets: SolanaAssets;
  reads: SolanaReads;
  treasury: Keypair;
  broadcaster: ChainSender;
}

/** What the sweep transaction does, read from the chain before it is signed (no RPC in the database transaction). */
interface SweepPlan {
  blockhash: string;
  lastValidBlockHeight: number;
  /** Token sweeps: the treasury has no token account of the mint yet (opened, rent paid by the treasury). */
  openTreasuryAccount: boolean;
  /** Token sweeps: the deposit token account holds exactly what moves, so it is closed. */
  closeDepositAccount: boolean;
  rentReclaimedRaw: bigint;
  rentPaidRaw: bigint;
}

/** One pass over SOLANA under its lease. */
class SolanaSweepPass extends ChainSweepPass<SweepRuntime, SolanaPassOptions> {
  async run(): Promise<void> {
    const { db } = this.options;
    // The fee the treasury paid, as the landed attempt was signed.
    await finishSettledSweeps(this.context, async ({ fee }) =>
      typeof fee?.lamports === "string" ? BigInt(fee.lamports) : null,
    );
    // Expired sweeps first (their send is re-queued), then the ready ones.
    const requeued = await listRequeuedSweeps(db, this.chain, SWEEPS_PER_TICK);
    const ready = await listReadySweeps(db, this.chain, SWEEPS_PER_TICK);
    const toSign = await this.oneTreasuryAccountOpener([
      ...requeued,
      ...ready.map((sweep) => ({ ...sweep, sendId: null })),
    ]);
    await mapBounded(toSign, CONCURRENCY, (sweep) =>
      isolatedStep(this.logger, { sweep: sweep.id }, () => this.sign(sweep, sweep.sendId)),
    );
    const candidates = await listSweepCandidates(db, this.chain, SWEEPS_PER_TICK);
    await mapBounded(
      candidates.filter((c) => c.unsweptRaw >= this.threshold(c.asset)),
      CONCURRENCY,
      (c) => isolatedStep(this.logger, { address: c.address, asset: c.asset }, () => this.open(c)),
    );
  }

  /**
   * Where the treasury has no token account of a mint yet, one sweep of that mint opens it (and
   * records the rent it pays); the others wait until it has landed or failed, then find the account.
   */
  private async oneTreasuryAccountOpener<T extends OpenSweep>(sweeps: T[]): Promise<T[]> {
    const treasury = this.runtime.treasury.publicKey;
    const missing = new Set<string>();
    for (const asset of new Set(sweeps.map((s) => s.asset))) {
      const token = this.tokenOf(asset);
      if (!token) continue;
      const account = associatedTokenAddress(new PublicKey(token.address), treasury);
      if ((await this.runtime.reads.accountLamports(account)) === null) missing.add(asset);
    }
    if (missing.size === 0) return sweeps;
    const openers = await listTreasuryAccountOpeners(this.options.db, this.chain);
    return sweeps.filter((sweep) => {
      if (!missing.has(sweep.asset)) return true;
      const opener = openers.get(sweep.asset);
      if (opener !== undefined) return opener === sweep.id;
      openers.set(sweep.asset, sweep.id);
      return true;
    });
  }

  private tokenOf(asset: string) {
    return [...this.runtime.assets.tokensByMint.values()].find((token) => token.asset === asset);
  }

  private isNative(asset: string): boolean {
    return asset === this.runtime.assets.native.asset;
  }

  private threshold(asset: string): bigint {
    const native = this.isNative(asset);
    const decimals = native ? this.runtime.assets.native.decimals : (this.tokenOf(asset)?.decimals ?? 0);
    return sweepThreshold(this.config, { asset, decimals }, native);
  }

  /** Opens a sweep, ready to be signed: tokens move what the deposits covered; SOL what the address can give. */
  private async open(candidate: SweepCandidate): Promise<void> {
    let amountRaw = candidate.unsweptRaw;
    if (this.isNative(candidate.asset)) {
      const held = await this.runtime.reads.lamportsOf(new PublicKey(candidate.address));
      if (held < amountRaw) amountRaw = held;
      // What stays must be 0 or rent exempt (else the transfer fails InsufficientFundsForRent): the
      // rent-exempt minimum then stays at the address, explained by covered_raw - amount_raw.
      const minimum = await this.runtime.reads.rentExemptMinimum(WALLET_SPACE);
      const left = held - amountRaw;
      if (left > 0n && left < minimum) amountRaw = held - minimum;
      if (amountRaw <= 0n) return;
    } else if (!this.tokenOf(candidate.asset)) {
      this.logger.warn({ asset: candidate.asset }, "deposits of an asset no longer configured: not swept");
      return;
    }
    const id = await this.fenced((tx) =>
      insertSweep(tx, {
        chain: this.chain,
        candidate,
        treasuryAddress: this.runtime.treasury.publicKey.toBase58(),
        amountRaw,
        state: "ready",
      }),
    );
    if (id) this.logger.info({ sweep: id, address: candidate.address, asset: candidate.asset }, "sweep opened");
  }

  /**
   * Signs a sweep with the treasury and deposit keys and stores it (send + attempt, one transaction)
   * before broadcasting it. `requeuedSendId`: the sweep's send, put back to queued after its last
   * attempt expired; it is signed again only if it still is (the row lock decides).
   */
  private async sign(sweep: OpenSweep, requeuedSendId: string | null): Promise<void> {
    const key = this.options.depositKeys.forPath("solana", sweep.derivationPath);
    const matches = key.address === sweep.depositAddress;
    if (await refuseForeignDepositKey(this.options.db, this.logger, sweep, { address: key.address, matches })) return;
    const deposit = Keypair.fromSeed(key.privateKey);
    const plan = await this.plan(sweep, deposit.publicKey);
    if (typeof plan === "string") {
      await noteSweepWaiting(this.options.db, sweep.id, plan);
      this.logger.warn({ sweep: sweep.id, reason: plan }, "sweep waits");
      return;
    }
    const stored = await this.fenced(async (tx) => {
      const sendId =
        requeuedSendId === null
          ? await startSweepSend(tx, this.chain, sweep, solanaSendCheck)
          : (await lockSignable(tx, [requeuedSendId]))
            ? requeuedSendId
            : null;
      if (sendId === null) return null;
      const signed = this.signTransaction(sweep, sendId, deposit, plan);
      const id = await insertAttempt(tx, this.chain, signed, null);
      await setSweepRent(tx, sweep.id, { reclaimedRaw: plan.rentReclaimedRaw, paidRaw: plan.rentPaidRaw });
      return { ...signed, id };
    });
    if (!stored) return;
    this.logger.info(
      { sweep: sweep.id, txHash: stored.txHash, again: requeuedSendId !== null },
      requeuedSendId === null ? "sweep signed" : "expired sweep signed again",
    );
    this.options.onStored?.(sweep.id);
    await broadcastStored(this.runtime.broadcaster, justStored(this.chain, stored, null), this.logger);
  }

  /** Reads what the transaction needs; a string says why it cannot be signed now (the sweep waits, visibly). */
  private async plan(sweep: OpenSweep, deposit: PublicKey): Promise<SweepPlan | string> {
    const { reads } = this.runtime;
    const treasury = this.runtime.treasury.publicKey;
    const latest = await reads.latestBlockhash();
    const spendable = (await reads.lamportsOf(treasury)) - (await reads.rentExemptMinimum(WALLET_SPACE));
    const plan: SweepPlan = {
      ...latest,
      openTreasuryAccount: false,
      closeDepositAccount: false,
      rentReclaimedRaw: 0n,
      rentPaidRaw: 0n,
    };
    if (this.isNative(sweep.asset)) {
      const held = await reads.lamportsOf(deposit);
      const left = held - sweep.amountRaw;
      if (left < 0n) return `the deposit address holds ${held} of the ${sweep.amountRaw} lamports to sweep`;
      if (left > 0n && left < (await reads.rentExemptMinimum(WALLET_SPACE))) {
        return `the deposit address would be left with ${left} lamports, below the rent-exempt minimum`;
      }
    } else {
      const token = this.tokenOf(sweep.asset);
      if (!token) return `asset ${sweep.asset} is no longer configured on SOLANA`;
      const mint = new PublicKey(token.address);
      const account = associatedTokenAddress(mint, deposit);
      const held = await reads.tokenUnitsOf(account);
      if (held < sweep.amountRaw) {
        return `the deposit token account holds ${held} of the ${sweep.amountRaw} ${sweep.asset} base units to sweep`;
      }
      // Only an account emptied by this transaction can be closed (else CloseAccount fails it all).
      if (held === sweep.amountRaw) {
        plan.closeDepositAccount = true;
        plan.rentReclaimedRaw = (await reads.accountLamports(account)) ?? 0n;
      }
      if ((await reads.accountLamports(associatedTokenAddress(mint, treasury))) === null) {
        plan.openTreasuryAccount = true;
        plan.rentPaidRaw = await reads.rentExemptMinimum(TOKEN_ACCOUNT_SPACE);
      }
    }
    const needed = SWEEP_FEE_LAMPORTS + plan.rentPaidRaw;
    if (spendable < needed) {
      return `the SOLANA treasury has ${spendable < 0n ? 0n : spendable} spendable lamports, the sweep's fee and rent need ${needed}`;
    }
    return plan;
  }

  /** The sweep transaction: fee payer the treasury, signed by the treasury and the deposit key. */
  private signTransaction(sweep: OpenSweep, sendId: string, deposit: Keypair, plan: SweepPlan): SignedAttempt {
    const treasury = this.runtime.treasury;
    const instructions: TransactionInstruction[] = [];
    if (this.isNative(sweep.asset)) {
      instructions.push(
        SystemProgram.transfer({
          fromPubkey: deposit.publicKey,
          toPubkey: treasury.publicKey,
          lamports: sweep.amountRaw,
        }),
      );
    } else {
      const token = this.tokenOf(sweep.asset);
      if (!token) throw new ValidationError(`asset ${sweep.asset} is not configured on SOLANA`, "asset");
      const mint = new PublicKey(token.address);
      const source = associatedTokenAddress(mint, deposit.publicKey);
      const destination = associatedTokenAddress(mint, treasury.publicKey);
      if (plan.openTreasuryAccount) {
        instructions.push(
          createAssociatedTokenAccountIdempotent(treasury.publicKey, destination, treasury.publicKey, mint),
        );
      }
      instructions.push(transferChecked(source, mint, destination, deposit.publicKey, sweep.amountRaw, token.decimals));
      if (plan.closeDepositAccount) instructions.push(closeAccount(source, treasury.publicKey, deposit.publicKey));
    }
    const transaction = new Transaction({
      feePayer: treasury.publicKey,
      blockhash: plan.blockhash,
      lastValidBlockHeight: plan.lastValidBlockHeight,
    }).add(...instructions);
    transaction.sign(treasury, deposit);
    const signature = transaction.signature;
    if (!signature) throw new Error("web3.js left the sweep transaction unsigned");
    return {
      txHash: bs58.encode(signature),
      raw: transaction.serialize().toString("base64"),
      from: deposit.publicKey.toBase58(),
      guard: { blockhash: plan.blockhash, lastValidBlockHeight: plan.lastValidBlockHeight },
      fee: { lamports: SWEEP_FEE_LAMPORTS.toString() },
      orders: [{ id: sendId }],
    };
  }
}
