import { createEvmSender } from "@mp/chain-evm";
import { silentLogger } from "@mp/core";
import { createTreasuryKeys, type TreasuryKeys } from "@mp/custody";
import type { Indexer } from "@mp/indexer";
import { createSendPipeline, recordTreasuryAddresses } from "@mp/treasury";
import { createPublicClient, erc20Abi, getAddress, type Hex, http } from "viem";
import { afterAll, beforeAll, expect } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain, type TestChain } from "../indexer/test-chains.ts";
import { late } from "../support/late.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";
import { startTransfersApi, type TransfersApi } from "./transfers-support.ts";

/** A public test mnemonic (its EVM treasury address is no anvil dev account). */
const TREASURY_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
/** anvil's account 0: test-chains' pay() sends from it, so a return to the payer lands there. */
export const PAYER = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");

/** What the return-policy tests on BASE share (useReturnsOnBase). */
export interface ReturnsOnBase {
  t: TransfersApi;
  base: TestChain;
  /** Indexes BASE up to its head. */
  catchUp(): Promise<void>;
  /** USDC units `owner` holds on BASE. */
  usdcOf(owner: Hex): Promise<bigint>;
  /** Runs the treasury's send pipeline on BASE, a block a tick, until `settled` says a return settled. */
  sendReturns(settled: () => Promise<boolean>): Promise<void>;
  /** Pays `micros` USDC from PAYER to `address`, confirmed and indexed: the deposit's id. */
  payConfirmed(address: string, micros: bigint): Promise<string>;
  /** The treasury's return sends: exactly one, to PAYER, of `amountRaw` USDC units, keyed by the deposit. */
  expectReturnSend(depositId: string, amountRaw: string): Promise<void>;
  /** No return send was ever requested. */
  expectNoReturnSends(): Promise<void>;
  /** The deposit's stored return: its origin and the USD micros owed to its payer. */
  expectStoredReturn(depositId: string, origin: string, owedUsdMicros: string): Promise<void>;
  /** A deposit sent back: its events (returned, then return_sent, once each) and the ledger, indexed to the head. */
  expectReturned(depositId: string): Promise<void>;
}

/** The transfers API on a real anvil with the real indexer and a funded treasury (startReturnsOnBase). */
export interface StartedReturnsOnBase {
  t: TransfersApi;
  base: TestChain;
  indexer: Indexer;
  /** The treasury's keys (its EVM send address holds the gas and USDC). */
  keys: TreasuryKeys;
  stop(): Promise<void>;
}

/**
 * The transfers API on a real anvil (BASE and its USDC) with the real indexer and a treasury holding
 * gas and 1,000 USDC: where returns to a payer (issue 29) are sent and seen arriving.
 */
export async function startReturnsOnBase(): Promise<StartedReturnsOnBase> {
  const keys = createTreasuryKeys(TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const treasury = getAddress(keys.key("evm").address);
  const chain = await startEvmChain();
  const api = await startTransfersApi({ chains: { BASE: chain.config } });
  const indexer = newIndexer(api.api.db, chain);
  await recordTreasuryAddresses(api.api.db, [
    { chain: "BASE", purpose: "send", path: keys.key("evm").path, address: treasury },
  ]);
  // The treasury's gas and USDC: an operator's top-up.
  await fetch(chain.config.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "anvil_setBalance",
      params: [treasury, "0x8AC7230489E80000"],
    }),
  });
  await chain.pay(treasury, 1_000_000_000n);
  await chain.mine(CONFIRMATIONS);
  await catchUp(indexer);
  return {
    t: api,
    base: chain,
    indexer,
    keys,
    async stop() {
      await indexer.stop();
      await api.stop();
      await chain.close();
    },
  };
}

/** startReturnsOnBase in the describe block's beforeAll, stopped in its afterAll. */
export function useReturnsOnBase(): ReturnsOnBase {
  let started: StartedReturnsOnBase | undefined;
  const t = late("the transfers API", () => started?.t);
  const base = late("the BASE test chain", () => started?.base);

  beforeAll(async () => {
    started = await startReturnsOnBase();
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  });

  return {
    t,
    base,
    catchUp: async () => {
      if (started) await catchUp(started.indexer);
    },
    usdcOf(owner) {
      const token = base.config.tokens.find((tok) => tok.asset === "USDC");
      if (!token) throw new Error("no USDC on BASE");
      return createPublicClient({ transport: http(base.config.rpcUrl) }).readContract({
        address: token.address as Hex,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [owner],
      });
    },
    async sendReturns(settled) {
      const pipeline = createSendPipeline({
        db: t.api.db,
        senders: [
          createEvmSender({
            config: base.config,
            keys: late("the treasury keys", () => started?.keys),
            db: t.api.db,
            logger: silentLogger(),
          }),
        ],
        logger: silentLogger(),
        confirmations: { BASE: 2 },
        leaseSeconds: TEST_LEASE_SECONDS,
      });
      try {
        for (let i = 0; i < 60; i++) {
          await pipeline.tick("BASE");
          await base.mine(1);
          if (await settled()) return;
        }
        throw new Error("no return settled in 60 blocks");
      } finally {
        await pipeline.stop();
      }
    },
    async payConfirmed(address, micros) {
      await base.pay(address, micros);
      await base.mine(CONFIRMATIONS - 1);
      if (started) await catchUp(started.indexer);
      const { rows } = await t.api.db.query<{ id: string }>("SELECT id FROM deposits WHERE to_address = $1", [address]);
      return rows[0]?.id ?? "";
    },
    async expectReturnSend(depositId, amountRaw) {
      const sends = await t.api.db.query<{ to_address: string; amount_raw: string; idempotency_key: string }>(
        "SELECT to_address, amount_raw::text, idempotency_key FROM treasury_sends WHERE purpose = 'return'",
      );
      expect(sends.rows).toEqual([
        {
          to_address: expect.stringMatching(new RegExp(PAYER, "i")),
          amount_raw: amountRaw,
          idempotency_key: `deposit-return:${depositId}`,
        },
      ]);
    },
    async expectNoReturnSends() {
      expect((await t.api.db.query("SELECT 1 FROM treasury_sends WHERE purpose = 'return'")).rowCount).toBe(0);
    },
    async expectStoredReturn(depositId, origin, owedUsdMicros) {
      const stored = await t.api.db.query<{ origin: string; owed_usd_micros: string }>(
        "SELECT origin, owed_usd_micros::text FROM deposit_returns WHERE deposit_id = $1",
        [depositId],
      );
      expect(stored.rows).toEqual([{ origin, owed_usd_micros: owedUsdMicros }]);
    },
    async expectReturned(depositId) {
      const events = await t.api.db.query<{ type: string }>(
        "SELECT type FROM events WHERE object_id = $1 ORDER BY seq",
        [depositId],
      );
      expect(events.rows.map((e) => e.type)).toEqual([
        "deposit.pending",
        "deposit.confirmed",
        "deposit.returned",
        "deposit.return_sent",
      ]);
      if (started) await catchUp(started.indexer);
      await t.expectLedgerClean();
    },
  };
}
