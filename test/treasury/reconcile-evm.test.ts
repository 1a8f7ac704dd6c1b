import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveChainConfig } from "@mp/core";
import type { Indexer } from "@mp/indexer";
import { checkLedger } from "@mp/ledger";
import {
  ANVIL_ACCOUNTS,
  type AnvilNode,
  sendNative,
  type TestToken,
  tokenBalance,
  transferToken,
} from "@mp/test-nodes/evm";
import { findSend, type ReconcileLine, type ReconcileTarget, reconcileChains, requestSend } from "@mp/treasury";
import { getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendCheckOf } from "../../services/payments/src/chain-families.ts";
import { runCli } from "../cli/run-cli.ts";
import { addWallet, catchUp, createMerchant } from "../indexer/indexer-fixtures.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { type EvmReconcileChain, startEvmReconcileChain } from "./evm-reconcile-chain.ts";

const ETH = 10n ** 18n;

const freshAddress = (): Hex => getAddress(`0x${randomBytes(20).toString("hex")}`);

describe("payments reconcile chains on anvil: deposits, the operator's float, sends and fees", () => {
  const database = useTestDatabase();
  const dir = useTempDir("mpreconcile-");
  let node: AnvilNode;
  let usdc: TestToken;
  let indexer: Indexer;
  let treasury: Hex;
  let chain: EvmReconcileChain;
  const deposit = freshAddress();

  const targets = (): ReconcileTarget[] => chain.targets();
  const line = (lines: ReconcileLine[], asset: string) => lines.find((l) => l.asset === asset);
  /** What the node says the treasury and the deposit address hold, asked here independently. */
  const onChain = async () => ({
    ETH:
      (await node.publicClient.getBalance({ address: treasury })) +
      (await node.publicClient.getBalance({ address: deposit })),
    USDC: (await tokenBalance(node, usdc, treasury)) + (await tokenBalance(node, usdc, deposit)),
  });
  const settle = () => chain.settle();

  /** The CLI's environment: this database and CHAINS_CONFIG with BASE on anvil, plus `more` chains. */
  const cliEnv = (more: Record<string, unknown> = {}) => {
    const file = join(dir, `chains-${Object.keys(more).join("-") || "base"}.json`);
    const base = {
      rpcUrl: node.url,
      network: "regtest",
      tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
    };
    writeFileSync(file, JSON.stringify({ chains: { BASE: base, ...more } }));
    return { DATABASE_URL: database.connectionString, CHAINS_CONFIG: file };
  };

  beforeAll(async () => {
    const db = database.db;
    chain = await startEvmReconcileChain(db);
    ({ node, usdc, indexer, treasury } = chain);
    const merchant = await createMerchant(db);
    await addWallet(db, merchant, "BASE", deposit);
    // An operator tops the treasury up; customers pay the deposit address.
    await sendNative(node, treasury, 10n * ETH);
    await transferToken(node, usdc, treasury, 1_000_000_000n);
    await sendNative(node, deposit, 2n * ETH);
    await transferToken(node, usdc, deposit, 250_000_000n);
    await settle();

    // The treasury sends (through the real pipeline): a token and the native coin.
    const pipeline = chain.pipeline();
    const sends = await Promise.all([
      requestSend(
        db,
        {
          chain: "BASE",
          asset: "USDC",
          to: freshAddress(),
          amountRaw: 40_000_000n,
          purpose: "operator",
          idempotencyKey: "r-usdc",
        },
        sendCheckOf("BASE"),
      ),
      requestSend(
        db,
        {
          chain: "BASE",
          asset: "ETH",
          to: freshAddress(),
          amountRaw: ETH / 4n,
          purpose: "operator",
          idempotencyKey: "r-eth",
        },
        sendCheckOf("BASE"),
      ),
    ]);
    for (let i = 0; i < 30; i++) {
      await pipeline.tick("BASE");
      await node.mine(1);
      const states = await Promise.all(sends.map((s) => findSend(db, s.send.id)));
      if (states.every((s) => s?.state === "confirmed")) break;
    }
    await pipeline.stop();
    for (const s of sends) expect((await findSend(db, s.send.id))?.state).toBe("confirmed");
    await settle();
  }, 120_000);

  afterAll(async () => {
    await chain?.stop();
  });

  it("records the top-ups as the operator's float in its own ledger account, never as a merchant's deposit", async () => {
    const db = database.db;
    const receipts = await db.query<{
      asset: string;
      amount_raw: string;
      kind: string;
      status: string;
      entry_id: string | null;
    }>("SELECT asset, amount_raw::text, kind, status, entry_id FROM treasury_receipts ORDER BY asset");
    expect(receipts.rows.map((r) => [r.asset, r.amount_raw, r.kind, r.status])).toEqual([
      ["ETH", (10n * ETH).toString(), "float", "CONFIRMED"],
      ["USDC", "1000000000", "float", "CONFIRMED"],
    ]);
    expect(receipts.rows.every((r) => r.entry_id !== null)).toBe(true);
    const deposits = await db.query<{ to_address: string }>("SELECT to_address FROM deposits");
    expect(deposits.rows.map((d) => getAddress(d.to_address))).toEqual([deposit, deposit]);
    // Sandbox rates (createSandboxRateProvider): ETH at 3,200 USD, USDC at 1: 32,000 + 1,000 USD.
    const float = await db.query<{ balance: string }>(
      `SELECT b.balance::text FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
        WHERE a.kind = 'operator_float'`,
    );
    expect(float.rows.map((r) => r.balance)).toEqual(["33000000000"]);
    expect((await checkLedger(db)).problems).toEqual([]);
  });

  it("agrees to the unit: deposits + float - sends - fees is what the node says we hold (exit 0)", async () => {
    const report = await reconcileChains(database.db, targets());
    expect(report.exitCode).toBe(0);
    const chain = await onChain();
    const eth = line(report.lines, "ETH");
    const token = line(report.lines, "USDC");
    expect(token).toMatchObject({
      status: "agrees",
      chain_holdings: (1_000_000_000n + 250_000_000n - 40_000_000n).toString(),
      expected: (1_000_000_000n + 250_000_000n - 40_000_000n).toString(),
      difference: "0",
    });
    expect(token?.chain_holdings).toBe(chain.USDC.toString());
    // The fees are what the two mined transactions paid (read by hash): > 0 and exactly explained.
    const fees = BigInt(eth?.breakdown.fees ?? "0");
    expect(fees).toBeGreaterThan(0n);
    expect(eth).toMatchObject({
      status: "agrees",
      difference: "0",
      chain_holdings: chain.ETH.toString(),
      expected: (12n * ETH - ETH / 4n - fees).toString(),
    });
  });

  it("the CLI prints one JSON object per chain and asset and exits 0", async () => {
    const result = await runCli(["reconcile", "chains", "--json"], cliEnv());
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ReconcileLine);
    expect(lines.map((l) => [l.chain, l.asset, l.status, l.difference])).toEqual([
      ["BASE", "ETH", "agrees", "0"],
      ["BASE", "USDC", "agrees", "0"],
    ]);
    expect(Object.keys(lines[0] ?? {})).toEqual(
      expect.arrayContaining(["chain_holdings", "expected", "difference", "explanation"]),
    );
  });

  it("money that reached our address without a record is an unexplained difference (exit 1) until indexed", async () => {
    // Paid while no indexer runs: the chain has it, our records do not.
    await transferToken(node, usdc, deposit, 7_000_000n);
    await node.mine(3);
    const report = await reconcileChains(database.db, targets());
    expect(report.exitCode).toBe(1);
    expect(line(report.lines, "USDC")).toMatchObject({ status: "unexplained", difference: "7000000" });
    expect(line(report.lines, "USDC")?.explanation).toContain("more than our records explain");
    expect(line(report.lines, "ETH")?.status).toBe("agrees");

    const cli = await runCli(["reconcile", "chains", "--json"], cliEnv());
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toContain('"difference":"7000000"');

    await catchUp(indexer);
    expect((await reconcileChains(database.db, targets())).exitCode).toBe(0);
  });

  it("a gas top-up the treasury sends to a deposit address is custody, never the merchant's deposit", async () => {
    const db = database.db;
    const pipeline = chain.pipeline();
    const { send } = await requestSend(
      db,
      {
        chain: "BASE",
        asset: "ETH",
        to: deposit,
        amountRaw: ETH / 100n,
        purpose: "top_up",
        idempotencyKey: "r-top-up",
      },
      sendCheckOf("BASE"),
    );
    for (let i = 0; i < 30 && (await findSend(db, send.id))?.state !== "confirmed"; i++) {
      await pipeline.tick("BASE");
      await node.mine(1);
    }
    await pipeline.stop();
    const landed = await findSend(db, send.id);
    expect(landed?.state).toBe("confirmed");
    await settle();
    // The indexer saw the transfer to the watched deposit address and recorded no deposit for it.
    const deposits = await db.query("SELECT id FROM deposits WHERE tx_hash = $1", [landed?.txHash]);
    expect(deposits.rows).toEqual([]);
    // Between our own addresses: only its fee leaves custody, and the books still agree.
    expect((await reconcileChains(db, targets())).exitCode).toBe(0);
  });

  it("a configured chain whose node is down exits 2, naming it", async () => {
    const down = resolveChainConfig("ARBITRUM", { rpcUrl: "http://127.0.0.1:9", network: "regtest" });
    const report = await reconcileChains(database.db, [
      ...targets(),
      reconcileTarget(down, [{ asset: "ETH", address: null, decimals: 18 }]),
    ]);
    expect(report.exitCode).toBe(2);
    expect(report.unreadable).toEqual(["ARBITRUM"]);
    expect(line(report.lines, "USDC")?.status).toBe("agrees");
    const arbitrum = report.lines.find((l) => l.chain === "ARBITRUM");
    expect(arbitrum).toMatchObject({ status: "unreadable", chain_holdings: null, difference: null });
    expect(arbitrum?.explanation).toContain("ARBITRUM");

    const cli = await runCli(
      ["reconcile", "chains", "--json"],
      cliEnv({ ARBITRUM: { rpcUrl: "http://127.0.0.1:9", network: "regtest" } }),
    );
    expect(cli.code, cli.stderr).toBe(2);
    expect(cli.stderr).toContain("cannot read chain ARBITRUM");
  });

  it("a float receipt whose block a reorg takes away is reversed, its ledger entry undone", async () => {
    const db = database.db;
    await sendNative(node, treasury, 3n * ETH);
    await settle();
    const topUp = await db.query<{ id: string; status: string }>(
      "SELECT id, status FROM treasury_receipts WHERE amount_raw = $1",
      [(3n * ETH).toString()],
    );
    expect(topUp.rows.map((r) => r.status)).toEqual(["CONFIRMED"]);
    const id = topUp.rows[0]?.id ?? "";
    // The top-up's block and the three after it replaced by a branch without it.
    await node.reorg(4);
    await node.mine(1);
    await catchUp(indexer);
    const after = await db.query<{ status: string; reversal_entry_id: string | null }>(
      "SELECT status, reversal_entry_id FROM treasury_receipts WHERE id = $1",
      [id],
    );
    expect(after.rows[0]?.status).toBe("REVERSED");
    expect(after.rows[0]?.reversal_entry_id).not.toBeNull();
    const entries = await db.query<{ kind: string }>(
      "SELECT kind FROM journal_entries WHERE reference = $1 ORDER BY seq",
      [id],
    );
    expect(entries.rows.map((e) => e.kind)).toEqual(["float_receipt", "float_reversal"]);
    expect((await checkLedger(db)).problems).toEqual([]);
    // The chain no longer holds it and neither do our records: still exact.
    expect((await reconcileChains(db, targets())).exitCode).toBe(0);
  });

  it("money a deposit address sends to the treasury (a sweep) is our own custody, never the operator's float", async () => {
    const db = database.db;
    // A deposit address whose key the test holds (an anvil dev account) sweeps into the treasury.
    const [, swept = ANVIL_ACCOUNTS[0]] = ANVIL_ACCOUNTS;
    await addWallet(db, await createMerchant(db), "BASE", swept.address);
    await sendNative(node, treasury, 123_456n, { from: swept });
    await settle();
    const receipt = await db.query<{ kind: string; status: string; entry_id: string | null }>(
      "SELECT kind, status, entry_id FROM treasury_receipts WHERE amount_raw = 123456",
    );
    expect(receipt.rows).toEqual([{ kind: "own", status: "CONFIRMED", entry_id: null }]);
  });
});
