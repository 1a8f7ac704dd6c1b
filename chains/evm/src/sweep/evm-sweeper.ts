import { type ChainConfig, type ChainId, mapBounded } from "@mp/core";
import type { DepositKey } from "@mp/custody";
import type { Queryable } from "@mp/db";
import type { LeasedChainLoop } from "@mp/treasury/ports";
import {
  ATTEMPT_COLUMNS,
  broadcastStored,
  type ChainSender,
  ChainSweepPass,
  createSweeperLoop,
  finishSweep,
  InsufficientTreasuryFundsError,
  insertAttempt,
  insertSweep,
  isolatedStep,
  justStored,
  keysSigningAs,
  listReadySweeps,
  listSettledSweeps,
  listSweepCandidates,
  markBroadcast,
  markSweeping,
  noteSweepWaiting,
  type OpenSweep,
  openSweepAmounts,
  reopenReorgedSweeps,
  requestSend,
  type SendOrder,
  type StoredAttempt,
  type StoredAttemptRow,
  type SweepCandidate,
  type SweeperOptions,
  setTopUpSend,
  settleTopUps,
  sweepThreshold,
  toStoredAttempt,
  unsweptDepositsAt,
} from "@mp/treasury/ports";
import { type Address, encodeFunctionData, erc20Abi, getAddress } from "viem";
import type { z } from "zod";
import { resolveEvmAssets } from "../evm-assets.ts";
import { evmSendCheck } from "../evm-send-check.ts";
import { feeReceiptAnswer, quantityAnswer } from "../send/evm-answers.ts";
import { createEvmNode, type EvmNode } from "../send/evm-node.ts";
import { createEvmSender } from "../send/evm-sender.ts";

/** The EVM chains to sweep are `chains` (their configs: RPC, tokens). */
export type EvmSweeperOptions = SweeperOptions;

/**
 * tick(chain): one pass over one chain (lease `sweeper:<CHAIN>`): settle finished sweeps, move
 * confirmed top-ups on, sign the ready sweeps (stored before broadcast), then open sweeps for the
 * addresses at or above their threshold (a top-up first where the address lacks gas).
 */
export type EvmSweeper = LeasedChainLoop;

/** Addresses looked at per pass: the rest waits for the next one. */
const SWEEPS_PER_TICK = 2_000;
/** Addresses read at once: their look-ups go out together as JSON-RPC batches (see createEvmNode). */
const CONCURRENCY = 200;
/** Sweeps (or top-ups) stored per database transaction: BEGIN, the lease check and COMMIT shared. */
const WRITES_PER_TX = 100;
/** The top-up pays this many times the sweep's gas at today's fee cap: room for the base fee to rise meanwhile. */
const TOP_UP_MARGIN = 2n;
/** A plain native transfer between accounts. */
const NATIVE_TRANSFER_GAS = 21_000n;

/**
 * The EVM sweeper (issue 14 "Sweeps"), run by the signer. A deposit address holding confirmed,
 * not yet swept deposits of an asset at or above its threshold is swept into the treasury:
 *
 *   token:  top-up (a treasury send of native coin, purpose top_up, idempotency key
 *           `sweep:<id>:top-up`, through requestSend and the send pipeline) when the address lacks
 *           gas -> once it is confirmed, the token `transfer` to the treasury, signed with the
 *           deposit key and stored before it is broadcast.
 *   native: the balance minus the most its gas may cost, no top-up.
 *
 * The sweep's own transaction is a treasury send from the deposit address (purpose sweep): its
 * nonce comes from treasury_nonces for that address and its attempt is stored by the pipeline's
 * insertAttempt, so the send pipeline broadcasts it again after a crash, confirms it and watches it
 * for reorgs. Nothing here touches the ledger: a sweep moves custody, not merchant money; the custody
 * record is treasury_sweeps (covered, amount, top-up, attempt, fee paid).
 */
export function createEvmSweeper(options: EvmSweeperOptions): EvmSweeper {
  const treasury = getAddress(options.treasuryKeys.key("evm").address);
  const chains = new Map<ChainId, ChainRuntime>(options.chains.map((c) => [c.chain, chainRuntime(c, options.fetch)]));
  return createSweeperLoop(options, (run) =>
    new ChainSweep(chains.get(run.chain) as ChainRuntime, treasury, options, run).run(),
  );
}

interface ChainRuntime {
  config: ChainConfig;
  assets: ReturnType<typeof resolveEvmAssets>;
  /** Shared by every deposit address's signer on the chain: one fee read, batched look-ups. */
  node: EvmNode;
}

function chainRuntime(config: ChainConfig, fetchFn: typeof globalThis.fetch | undefined): ChainRuntime {
  return {
    config,
    assets: resolveEvmAssets(config),
    node: createEvmNode(config, { fetch: fetchFn, batch: true }),
  };
}

/** One pass over one chain under its lease. */
class ChainSweep extends ChainSweepPass<ChainRuntime, EvmSweeperOptions, Address> {
  async run(): Promise<void> {
    const reopened = await this.fenced((tx) => reopenReorgedSweeps(tx, this.chain));
    if (reopened.length > 0)
      this.logger.warn({ sweeps: reopened }, "a confirmed sweep's block left the chain: sweeping again");
    await this.finishSettled();
    await this.fillRefusedNonces();
    await this.fenced((tx) => settleTopUps(tx, this.chain));
    const ready = await listReadySweeps(this.options.db, this.chain, SWEEPS_PER_TICK);
    if (ready.length > 0) this.options.onReady?.(ready.map((s) => s.id));
    await this.sign(ready);
    const candidates = await listSweepCandidates(this.options.db, this.chain, SWEEPS_PER_TICK);
    const nativeLeaving = await this.nativeLeaving(candidates);
    const plans = await mapBounded(
      candidates.filter((c) => c.unsweptRaw >= this.threshold(c.asset)),
      CONCURRENCY,
      (c) => this.isolated({ address: c.address, asset: c.asset }, () => this.plan(c, nativeLeaving)),
    );
    const opening = plans.filter((p): p is SweepPlan => p !== undefined && p !== null);
    for (let i = 0; i < opening.length; i += WRITES_PER_TX) {
      const chunk = opening.slice(i, i + WRITES_PER_TX);
      await this.isolated({ sweeps: String(chunk.length) }, () => this.open(chunk));
    }
  }

  /**
   * Sweeps the node refused for good (the pipeline failed them): their nonce, allocated from the
   * deposit address's treasury_nonces row, is never used, so every later sweep of that address
   * would wait behind it. The pipeline fills a refused nonce of the treasury's own address (its
   * sender's fill()), but holds no deposit keys: here the deposit address's sender fills it, a
   * zero-value transfer to itself at that nonce (guard.fills names the refused attempt), stored
   * before it is broadcast; the pipeline confirms it like any attempt.
   */
  private async fillRefusedNonces(): Promise<void> {
    for (const refused of await unfilledRefusedSweeps(this.options.db, this.chain)) {
      await this.isolated({ attempt: refused.attempt.id }, async () => {
        const key = this.options.depositKeys.forPath("evm", refused.derivationPath);
        if (getAddress(key.address) !== getAddress(refused.attempt.from)) return;
        const sender = this.depositSender(key);
        const stored = await this.fenced(async (tx) => {
          // Filled once: a refused filler waits for an operator, as the pipeline's do.
          const { rows } = await tx.query("SELECT 1 FROM treasury_attempts WHERE guard->>'fills' = $1", [
            refused.attempt.id,
          ]);
          if (rows.length > 0) return null;
          const signed = await sender.fill?.(tx, refused.attempt);
          if (!signed) return null;
          const id = await insertAttempt(tx, this.chain, signed, null);
          return { ...signed, id };
        });
        if (!stored) return;
        this.logger.warn(
          { refused: refused.attempt.id, filler: stored.id, address: refused.attempt.from },
          "a refused sweep's nonce filled by a zero-value transfer from its deposit address",
        );
        await broadcastStored(sender, justStored(this.chain, stored, null), this.logger);
      });
    }
  }

  /** The EVM sender signing as one deposit address, on the chain's shared node. */
  private depositSender(key: DepositKey): ChainSender {
    return createEvmSender({
      config: this.runtime.config,
      keys: keysSigningAs("evm", key),
      db: this.options.db,
      logger: this.logger,
      node: this.runtime.node,
    });
  }

  /** One address the node or the database cannot serve now does not hold up the others; the next pass retries it. */
  private isolated<T>(context: Record<string, string>, fn: () => Promise<T>): Promise<T | undefined> {
    return isolatedStep(this.logger, context, fn);
  }

  private threshold(asset: string): bigint {
    const { native, tokens } = this.runtime.assets;
    const decimals = asset === native.asset ? native.decimals : (tokens.find((t) => t.asset === asset)?.decimals ?? 0);
    return sweepThreshold(this.config, { asset, decimals }, asset === native.asset);
  }

  private rpc<S extends z.ZodType>(method: string, params: unknown[], answer: S): Promise<z.output<S>> {
    return this.runtime.node.rpc(method, params, answer);
  }

  /** The fee cap a transaction signed now offers per gas: the EVM sender's (the fees it reads, shared). */
  private async feeCap(): Promise<bigint> {
    const fees = await this.runtime.node.fees();
    return fees.type === "legacy" ? fees.gasPrice : fees.maxFeePerGas;
  }

  private tokenOf(asset: string): Address | null {
    const token = this.runtime.assets.tokens.find((t) => t.asset === asset);
    return token ? getAddress(token.address) : null;
  }

  /**
   * Native coin at each address that a token sweep's gas may not count on: the customers' native
   * deposits not swept yet (below the threshold, pending, or beside an open native sweep too), and
   * what an open native sweep covers. Counted as gas, the token sweep spent the customer's coin and
   * the native sweep, signed for the whole deposit, could never be paid (or the other way round):
   * one of them waited forever.
   */
  private async nativeLeaving(candidates: readonly SweepCandidate[]): Promise<Map<Address, bigint>> {
    const native = this.runtime.assets.native.asset;
    const leaving = new Map<Address, bigint>();
    const add = (address: string, amount: bigint) =>
      leaving.set(getAddress(address), (leaving.get(getAddress(address)) ?? 0n) + amount);
    for (const [address, { covered }] of await openSweepAmounts(this.options.db, this.chain, native))
      add(address, covered);
    const tokenAt = candidates.filter((c) => c.asset !== native).map((c) => c.destinationId);
    for (const [address, unswept] of await unsweptDepositsAt(this.options.db, this.chain, native, tokenAt))
      add(address, unswept);
    return leaving;
  }

  /** What opening a sweep of the candidate takes: the amount, and the top-up when a token's address lacks gas; null when there is nothing to sweep. */
  private async plan(
    candidate: SweepCandidate,
    nativeLeaving: ReadonlyMap<Address, bigint>,
  ): Promise<SweepPlan | null> {
    const address = getAddress(candidate.address);
    const [balanceHex, cap] = await Promise.all([
      this.rpc("eth_getBalance", [address, "latest"], quantityAnswer),
      this.feeCap(),
    ]);
    const balance = BigInt(balanceHex);
    if (candidate.asset === this.runtime.assets.native.asset) {
      // The deposit pays its own gas: what moves is the deposit less the most that gas may cost.
      const covered = candidate.unsweptRaw < balance ? candidate.unsweptRaw : balance;
      const amountRaw = covered - NATIVE_TRANSFER_GAS * cap * TOP_UP_MARGIN;
      return amountRaw > 0n ? { candidate, amountRaw, topUp: 0n } : null;
    }
    const token = this.tokenOf(candidate.asset);
    if (!token) {
      this.logger.warn({ asset: candidate.asset }, "deposits of an asset no longer configured: not swept");
      return null;
    }
    const gas = await this.transferGas(address, token, candidate.unsweptRaw);
    const needed = gas * cap * TOP_UP_MARGIN;
    const spare = balance - (nativeLeaving.get(address) ?? 0n);
    const gasThere = spare > 0n ? spare : 0n;
    return { candidate, amountRaw: candidate.unsweptRaw, topUp: needed > gasThere ? needed - gasThere : 0n };
  }

  /** Opens the planned sweeps in one transaction, each with its top-up send where it needs one. */
  private async open(plans: readonly SweepPlan[]): Promise<void> {
    const opened = await this.fenced((tx) =>
      // Independent rows (one open sweep per address and asset): issued together on the pipelined connection.
      Promise.all(
        plans.map(async ({ candidate, amountRaw, topUp }) => {
          const id = await insertSweep(tx, {
            chain: this.chain,
            candidate,
            treasuryAddress: this.treasury,
            amountRaw,
            state: topUp > 0n ? "topping_up" : "ready",
          });
          if (id === null || topUp === 0n) return id;
          // In the sweep's own transaction: a crash leaves either both or neither, and the key derived
          // from the sweep makes any retry return this same top-up, never a second one.
          const { send } = await requestSend(
            tx,
            {
              chain: this.chain,
              asset: this.runtime.assets.native.asset,
              to: getAddress(candidate.address),
              amountRaw: topUp,
              purpose: "top_up",
              idempotencyKey: `sweep:${id}:top-up`,
            },
            evmSendCheck,
          );
          await setTopUpSend(tx, id, send.id);
          return id;
        }),
      ),
    );
    for (const [i, sweepId] of opened.entries()) {
      const plan = plans[i] as SweepPlan;
      if (sweepId)
        this.logger.info(
          {
            sweep: sweepId,
            address: plan.candidate.address,
            asset: plan.candidate.asset,
            topUp: plan.topUp.toString(),
          },
          "sweep opened",
        );
    }
  }

  /** Gas of the token transfer the sweep will sign, with the EVM sender's margin. */
  private async transferGas(from: Address, token: Address, amount: bigint): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [this.treasury, amount] });
    const estimate = BigInt(await this.rpc("eth_estimateGas", [{ from, to: token, data }], quantityAnswer));
    return estimate + estimate / 4n;
  }

  /**
   * Signs the ready sweeps, each with its deposit key, and stores them (send + attempt + nonce) many
   * per transaction before broadcasting them; the send pipeline broadcasts again what is lost here.
   */
  private async sign(ready: readonly OpenSweep[]): Promise<void> {
    const prepared = await mapBounded(ready, CONCURRENCY, (sweep) =>
      this.isolated({ sweep: sweep.id }, () => this.prepare(sweep)),
    );
    const signable = prepared.filter((p): p is PreparedSweep => p !== undefined && p !== null);
    for (let i = 0; i < signable.length; i += WRITES_PER_TX) {
      const chunk = signable.slice(i, i + WRITES_PER_TX);
      const stored = await this.isolated({ sweeps: String(chunk.length) }, () => this.store(chunk));
      if (stored) await this.broadcast(stored);
    }
  }

  /** The deposit address's signer and what it read to sign the sweep (outside any transaction); null when it waits. */
  private async prepare(sweep: OpenSweep): Promise<PreparedSweep | null> {
    const key = this.options.depositKeys.forPath("evm", sweep.derivationPath);
    if (getAddress(key.address) !== getAddress(sweep.depositAddress)) {
      // Never sign for an address whose key we do not derive: the destination row and the mnemonic disagree.
      await noteSweepWaiting(
        this.options.db,
        sweep.id,
        `the deposit key derives ${key.address}, not ${sweep.depositAddress}`,
      );
      this.logger.error({ sweep: sweep.id, address: sweep.depositAddress }, "deposit key does not match its address");
      return null;
    }
    // The shared node: chain id and fees are read once for every deposit address of the pass.
    const sender = this.depositSender(key);
    const order: SendOrder = {
      id: sweep.id,
      chain: this.chain,
      asset: sweep.asset,
      to: sweep.treasuryAddress,
      amountRaw: sweep.amountRaw,
    };
    try {
      return { sweep, sender, order, prepared: await sender.prepare([order]) };
    } catch (error) {
      if (error instanceof InsufficientTreasuryFundsError) {
        // The gas is short (the base fee rose past the top-up's margin): it waits, visibly.
        await noteSweepWaiting(this.options.db, sweep.id, error.message);
        this.logger.warn({ sweep: sweep.id, reason: error.message }, "sweep waits: the deposit address lacks gas");
        return null;
      }
      throw error;
    }
  }

  /** Signs and stores the prepared sweeps in one fenced transaction (each its own send, nonce row and attempt). */
  private async store(
    chunk: readonly PreparedSweep[],
  ): Promise<Array<{ sweep: PreparedSweep; attempt: StoredAttempt }>> {
    const stored = await this.fenced((tx) =>
      // Each sweep signs from its own address (its own nonce row): independent, so issued together.
      Promise.all(
        chunk.map(async (p) => {
          const { send } = await requestSend(
            tx,
            {
              chain: this.chain,
              asset: p.sweep.asset,
              to: p.sweep.treasuryAddress,
              amountRaw: p.sweep.amountRaw,
              purpose: "sweep",
              idempotencyKey: `sweep:${p.sweep.id}`,
            },
            evmSendCheck,
          );
          if (!(await markSweeping(tx, p.sweep.id, send.id))) return null;
          const signed = await p.sender.sign(tx, [{ ...p.order, id: send.id }], p.prepared);
          const id = await insertAttempt(tx, this.chain, signed, null);
          return { sweep: p, attempt: justStored(this.chain, { ...signed, id }, null) };
        }),
      ),
    );
    return stored.filter((s) => s !== null);
  }

  /** Stored first: a broadcast lost here is made again by the send pipeline's next pass. */
  private async broadcast(stored: ReadonlyArray<{ sweep: PreparedSweep; attempt: StoredAttempt }>): Promise<void> {
    const [head, sent] = await Promise.all([
      this.runtime.node.head().then((block) => Number(BigInt(block.number))),
      Promise.all(
        stored.map(({ sweep, attempt }) =>
          sweep.sender.broadcast(attempt).then(
            () => attempt.id,
            (error: unknown) => {
              this.logger.warn(
                { sweep: sweep.sweep.id, txHash: attempt.txHash, err: String(error) },
                "sweep broadcast failed",
              );
              return null;
            },
          ),
        ),
      ),
    ]);
    // Recorded as the pipeline records its own: it watches them from here instead of sending them again.
    const ids = sent.filter((id) => id !== null);
    await this.isolated({ sweeps: String(ids.length) }, () => this.fenced((tx) => markBroadcast(tx, ids, head)));
  }

  /** Sweeps whose send the pipeline confirmed (or saw fail): the fee paid from the receipt, then done. */
  private async finishSettled(): Promise<void> {
    const listed = await listSettledSweeps(this.options.db, this.chain);
    // A receipt the node cannot give now (it threw) leaves that sweep to a later pass, not the others.
    const fees = await mapBounded(listed, CONCURRENCY, (sweep) =>
      this.isolated({ sweep: sweep.id }, async () => {
        if (!sweep.txHash) return null;
        const receipt = await this.rpc("eth_getTransactionReceipt", [sweep.txHash], feeReceiptAnswer.nullable());
        return receipt ? BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) : null;
      }),
    );
    const settled = listed.flatMap((sweep, i) => (fees[i] === undefined ? [] : [{ sweep, fee: fees[i] ?? null }]));
    for (let i = 0; i < settled.length; i += WRITES_PER_TX) {
      const chunk = settled.slice(i, i + WRITES_PER_TX);
      const written = await this.isolated({ sweeps: String(chunk.length) }, () =>
        this.fenced((tx) =>
          Promise.all(
            chunk.map(({ sweep, fee }) =>
              finishSweep(tx, sweep.id, {
                state: sweep.sendState,
                attemptId: sweep.attemptId,
                txHash: sweep.txHash,
                feePaidRaw: fee,
                reason: sweep.sendState === "failed" ? (sweep.reason ?? "the sweep failed on chain") : null,
              }),
            ),
          ),
        ),
      );
      if (!written) continue;
      for (const { sweep } of chunk) {
        if (sweep.sendState === "confirmed")
          this.logger.info({ sweep: sweep.id, txHash: sweep.txHash }, "sweep confirmed");
        else this.logger.warn({ sweep: sweep.id, reason: sweep.reason }, "sweep failed");
      }
    }
  }
}

/** A candidate about to be opened: what its sweep moves, and the gas top-up it needs first (0: none). */
interface SweepPlan {
  candidate: SweepCandidate;
  amountRaw: bigint;
  topUp: bigint;
}

/** A ready sweep with its deposit address's signer and what that read for sign(). */
interface PreparedSweep {
  sweep: OpenSweep;
  sender: ChainSender;
  order: SendOrder;
  prepared: unknown;
}

/**
 * Sweep attempts of `chain` the node refused for good (failed, never in a block) whose nonce nothing
 * else holds (no other attempt of the address at that nonce signed, broadcast or mined) and that no
 * filler was signed for yet, with their deposit address's derivation path.
 */
async function unfilledRefusedSweeps(
  q: Queryable,
  chain: ChainId,
): Promise<Array<{ attempt: StoredAttempt; derivationPath: string }>> {
  const { rows } = await q.query<StoredAttemptRow & { derivation_path: string }>(
    `SELECT ${ATTEMPT_COLUMNS}, t.derivation_path
       FROM treasury_attempts a
       JOIN treasury_attempt_sends x ON x.attempt_id = a.id
       JOIN treasury_sweeps w ON w.send_id = x.send_id
       JOIN destinations t ON t.id = w.destination_id
      WHERE a.chain = $1 AND a.state = 'failed' AND a.block_height IS NULL AND a.guard->>'nonce' IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM treasury_attempts f WHERE f.guard->>'fills' = a.id)
        AND NOT EXISTS (SELECT 1 FROM treasury_attempts o
                         WHERE o.chain = a.chain AND o.from_address = a.from_address AND o.id <> a.id
                           AND o.guard->>'nonce' = a.guard->>'nonce' AND o.state IN ('signed', 'broadcast', 'mined'))
      ORDER BY a.created_at, a.id
      LIMIT $2`,
    [chain, SWEEPS_PER_TICK],
  );
  // Its orders are not read: filling its nonce needs only the refused transaction itself.
  return rows.map((r) => ({ derivationPath: r.derivation_path, attempt: toStoredAttempt(r, []) }));
}
