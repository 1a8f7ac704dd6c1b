import { resolveEvmAssets } from "@mp/chain-evm";
import { type ChainConfig, type ChainId, type Logger, mapBounded } from "@mp/core";
import { assertLeader, type Queryable } from "@mp/db";
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import { insertAttempt } from "../attempt-store.ts";
import { createLeasedChainLoop, type LeasedChainLoop } from "../chain-loop.ts";
import { type ChainSender, InsufficientTreasuryFundsError } from "../chain-sender.ts";
import { createEvmSender } from "../evm/evm-sender.ts";
import { justStored } from "../send-pipeline.ts";
import { requestSend } from "../send-requests.ts";
import { DEFAULT_SWEEP_CONFIG, type SweepConfig, sweepThreshold } from "./sweep-config.ts";
import type { SweeperOptions } from "./sweep-send.ts";
import { isolatedStep, keysSigningAs } from "./sweep-step.ts";
import {
  finishSweep,
  insertSweep,
  listReadySweeps,
  listSettledSweeps,
  listSweepCandidates,
  markSweeping,
  noteSweepWaiting,
  type OpenSweep,
  type SweepCandidate,
  setTopUpSend,
  settleTopUps,
} from "./sweep-store.ts";

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
/** RPC look-ups (and signings) in flight at once. */
const CONCURRENCY = 16;
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
  const { db, logger } = options;
  const config = options.config ?? DEFAULT_SWEEP_CONFIG;
  const leaseSeconds = options.leases?.seconds ?? options.leaseSeconds ?? 10;
  const treasury = getAddress(options.treasuryKeys.evm().address);
  const chains = new Map<ChainId, ChainRuntime>(options.chains.map((c) => [c.chain, chainRuntime(c, options.fetch)]));
  return createLeasedChainLoop({
    db,
    logger,
    ...(options.leases ? { leases: options.leases } : {}),
    leaseSeconds,
    chains: [...chains.keys()],
    leaseName: (chain) => `sweeper:${chain}`,
    intervalMs: config.intervalMs,
    what: "sweeper",
    pass: (chain, lease) => {
      const fenced = <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> =>
        db.tx(async (tx) => {
          await assertLeader(tx, lease, { idleTimeoutMs: leaseSeconds * 500 });
          return fn(tx);
        });
      const runtime = chains.get(chain) as ChainRuntime;
      return new ChainSweep(runtime, treasury, options, config, fenced, logger.child({ chain, sweeper: true })).run();
    },
  });
}

interface ChainRuntime {
  config: ChainConfig;
  assets: ReturnType<typeof resolveEvmAssets>;
  client: PublicClient;
  fetch: typeof globalThis.fetch | undefined;
}

function chainRuntime(config: ChainConfig, fetchFn: typeof globalThis.fetch | undefined): ChainRuntime {
  return {
    config,
    assets: resolveEvmAssets(config),
    client: createPublicClient({
      transport: http(config.rpcUrl, { timeout: 30_000, ...(fetchFn === undefined ? {} : { fetchFn }) }),
    }),
    fetch: fetchFn,
  };
}

/** One pass over one chain under its lease. */
class ChainSweep {
  private readonly chain: ChainId;
  private fees: bigint | undefined;

  constructor(
    private readonly runtime: ChainRuntime,
    private readonly treasury: Address,
    private readonly options: EvmSweeperOptions,
    private readonly config: SweepConfig,
    private readonly fenced: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>,
    private readonly logger: Logger,
  ) {
    this.chain = runtime.config.chain;
  }

  async run(): Promise<void> {
    await this.finishSettled();
    await this.fenced((tx) => settleTopUps(tx, this.chain));
    const ready = await listReadySweeps(this.options.db, this.chain, SWEEPS_PER_TICK);
    if (ready.length > 0) this.options.onReady?.(ready.map((s) => s.id));
    await mapBounded(ready, CONCURRENCY, (sweep) => this.isolated({ sweep: sweep.id }, () => this.sign(sweep)));
    const candidates = await listSweepCandidates(this.options.db, this.chain, SWEEPS_PER_TICK);
    await mapBounded(
      candidates.filter((c) => c.unsweptRaw >= this.threshold(c.asset)),
      CONCURRENCY,
      (c) => this.isolated({ address: c.address, asset: c.asset }, () => this.open(c)),
    );
  }

  /** One address the node or the database cannot serve now does not hold up the others; the next pass retries it. */
  private isolated(context: Record<string, string>, fn: () => Promise<void>): Promise<void> {
    return isolatedStep(this.logger, context, fn);
  }

  private threshold(asset: string): bigint {
    const { native, tokens } = this.runtime.assets;
    const decimals = asset === native.asset ? native.decimals : (tokens.find((t) => t.asset === asset)?.decimals ?? 0);
    return sweepThreshold(this.config, { asset, decimals }, asset === native.asset);
  }

  private rpc<T>(method: string, params: unknown[]): Promise<T> {
    return this.runtime.client.request({ method: method as "eth_chainId", params: params as never }) as Promise<T>;
  }

  /** The fee cap a transaction signed now offers per gas: the EVM sender's rule (twice the base fee plus the tip). */
  private async feeCap(): Promise<bigint> {
    if (this.fees !== undefined) return this.fees;
    const block = await this.rpc<{ baseFeePerGas?: Hex | null }>("eth_getBlockByNumber", ["latest", false]);
    if (block.baseFeePerGas === undefined || block.baseFeePerGas === null) {
      this.fees = BigInt(await this.rpc<Hex>("eth_gasPrice", []));
    } else {
      const tip = BigInt(await this.rpc<Hex>("eth_maxPriorityFeePerGas", []));
      this.fees = BigInt(block.baseFeePerGas) * 2n + tip;
    }
    return this.fees;
  }

  private tokenOf(asset: string): Address | null {
    const token = this.runtime.assets.tokens.find((t) => t.asset === asset);
    return token ? getAddress(token.address) : null;
  }

  /** Opens a sweep: for a token, with a top-up when the address lacks the gas. */
  private async open(candidate: SweepCandidate): Promise<void> {
    const address = getAddress(candidate.address);
    const balance = BigInt(await this.rpc<Hex>("eth_getBalance", [address, "latest"]));
    const cap = await this.feeCap();
    const native = candidate.asset === this.runtime.assets.native.asset;
    if (native) {
      // The deposit pays its own gas: what moves is the deposit less the most that gas may cost.
      const covered = candidate.unsweptRaw < balance ? candidate.unsweptRaw : balance;
      const amountRaw = covered - NATIVE_TRANSFER_GAS * cap * TOP_UP_MARGIN;
      if (amountRaw <= 0n) return;
      await this.fenced((tx) =>
        insertSweep(tx, { chain: this.chain, candidate, treasuryAddress: this.treasury, amountRaw, state: "ready" }),
      );
      return;
    }
    const token = this.tokenOf(candidate.asset);
    if (!token) {
      this.logger.warn({ asset: candidate.asset }, "deposits of an asset no longer configured: not swept");
      return;
    }
    const gas = await this.transferGas(address, token, candidate.unsweptRaw);
    const needed = gas * cap * TOP_UP_MARGIN;
    const topUp = needed > balance ? needed - balance : 0n;
    const sweepId = await this.fenced(async (tx) => {
      const id = await insertSweep(tx, {
        chain: this.chain,
        candidate,
        treasuryAddress: this.treasury,
        amountRaw: candidate.unsweptRaw,
        state: topUp > 0n ? "topping_up" : "ready",
      });
      if (id === null || topUp === 0n) return id;
      // In the sweep's own transaction: a crash leaves either both or neither, and the key derived
      // from the sweep makes any retry return this same top-up, never a second one.
      const { send } = await requestSend(tx, {
        chain: this.chain,
        asset: this.runtime.assets.native.asset,
        to: address,
        amountRaw: topUp,
        purpose: "top_up",
        idempotencyKey: `sweep:${id}:top-up`,
      });
      await setTopUpSend(tx, id, send.id);
      return id;
    });
    if (sweepId)
      this.logger.info({ sweep: sweepId, address, asset: candidate.asset, topUp: topUp.toString() }, "sweep opened");
  }

  /** Gas of the token transfer the sweep will sign, with the EVM sender's margin. */
  private async transferGas(from: Address, token: Address, amount: bigint): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [this.treasury, amount] });
    const estimate = BigInt(await this.rpc<Hex>("eth_estimateGas", [{ from, to: token, data }]));
    return estimate + estimate / 4n;
  }

  /**
   * Signs a ready sweep with its deposit key and stores it (send + attempt + nonce, one transaction)
   * before broadcasting it; the send pipeline broadcasts it again if this broadcast is lost.
   */
  private async sign(sweep: OpenSweep): Promise<void> {
    const key = this.options.depositKeys.forPath("evm", sweep.derivationPath);
    if (getAddress(key.address) !== getAddress(sweep.depositAddress)) {
      // Never sign for an address whose key we do not derive: the destination row and the mnemonic disagree.
      await noteSweepWaiting(
        this.options.db,
        sweep.id,
        `the deposit key derives ${key.address}, not ${sweep.depositAddress}`,
      );
      this.logger.error({ sweep: sweep.id, address: sweep.depositAddress }, "deposit key does not match its address");
      return;
    }
    const sender: ChainSender = createEvmSender({
      config: this.runtime.config,
      keys: keysSigningAs("evm", key),
      db: this.options.db,
      logger: this.logger,
      ...(this.runtime.fetch === undefined ? {} : { fetch: this.runtime.fetch }),
    });
    const order = {
      id: sweep.id,
      chain: this.chain,
      asset: sweep.asset,
      to: sweep.treasuryAddress,
      amountRaw: sweep.amountRaw,
    };
    let prepared: unknown;
    try {
      prepared = await sender.prepare([order]);
    } catch (error) {
      if (error instanceof InsufficientTreasuryFundsError) {
        // The gas is short (the base fee rose past the top-up's margin): it waits, visibly.
        await noteSweepWaiting(this.options.db, sweep.id, error.message);
        this.logger.warn({ sweep: sweep.id, reason: error.message }, "sweep waits: the deposit address lacks gas");
        return;
      }
      throw error;
    }
    const stored = await this.fenced(async (tx) => {
      const { send } = await requestSend(tx, {
        chain: this.chain,
        asset: sweep.asset,
        to: sweep.treasuryAddress,
        amountRaw: sweep.amountRaw,
        purpose: "sweep",
        idempotencyKey: `sweep:${sweep.id}`,
      });
      if (!(await markSweeping(tx, sweep.id, send.id))) return null;
      const signed = await sender.sign(tx, [{ ...order, id: send.id }], prepared);
      const id = await insertAttempt(tx, this.chain, signed, null);
      return { ...signed, id };
    });
    if (!stored) return;
    const attempt = justStored(this.chain, stored, null);
    // Stored first: a broadcast lost here is made again by the send pipeline's next pass.
    await sender.broadcast(attempt).catch((error: unknown) => {
      this.logger.warn({ sweep: sweep.id, txHash: stored.txHash, err: String(error) }, "sweep broadcast failed");
    });
  }

  /** Sweeps whose send the pipeline confirmed (or saw fail): the fee paid from the receipt, then done. */
  private async finishSettled(): Promise<void> {
    const settled = await listSettledSweeps(this.options.db, this.chain);
    await mapBounded(settled, CONCURRENCY, async (sweep) => {
      let feePaidRaw: bigint | null = null;
      if (sweep.txHash) {
        const receipt = await this.rpc<{ gasUsed: Hex; effectiveGasPrice: Hex } | null>("eth_getTransactionReceipt", [
          sweep.txHash,
        ]);
        if (receipt) feePaidRaw = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      }
      await this.fenced((tx) =>
        finishSweep(tx, sweep.id, {
          state: sweep.sendState,
          attemptId: sweep.attemptId,
          txHash: sweep.txHash,
          feePaidRaw,
          reason: sweep.sendState === "failed" ? (sweep.reason ?? "the sweep failed on chain") : null,
        }),
      );
      if (sweep.sendState === "confirmed")
        this.logger.info({ sweep: sweep.id, txHash: sweep.txHash }, "sweep confirmed");
      else this.logger.warn({ sweep: sweep.id, reason: sweep.reason }, "sweep failed");
    });
  }
}
