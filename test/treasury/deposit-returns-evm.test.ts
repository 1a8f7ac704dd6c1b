import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkLedger, returnHeldDeposit } from "@mp/ledger";
import {
  ANVIL_ACCOUNTS,
  minedTransaction,
  sendFromUnlocked,
  sendNative,
  testTokenAbi,
  tokenBalance,
  transferToken,
} from "@mp/test-nodes/evm";
import { sendDepositReturn, settleDepositReturns } from "@mp/transfers";
import { findSend, reconcileChains } from "@mp/treasury";
import { encodeFunctionData, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { runCli } from "../cli/run-cli.ts";
import { addWallet, createMerchant, rejectCustomer, type TestMerchant } from "../indexer/indexer-fixtures.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { type EvmReconcileChain, startEvmReconcileChain } from "./evm-reconcile-chain.ts";

const ETH = 10n ** 18n;
const USDC = 1_000_000n;
/** The payer: an anvil dev account other than the deployer (which funds the treasury). */
const PAYER = (() => {
  const account = ANVIL_ACCOUNTS[1];
  if (!account) throw new Error("anvil has a second dev account");
  return account;
})();

/**
 * Returns on chain (issue 29, item 1), on anvil with the real indexer, send pipeline and CLI: a held
 * deposit returned by `payments deposits return` goes back to its sender through the treasury's send
 * pipeline (purpose `return`), once, less the network fee (RETURN_NETWORK_FEE_USD, 1.00 by default:
 * 1 USDC at the sandbox's rate); the ledger moves returns_payable to payout_clearing when the send is
 * confirmed, and `ledger check` and `reconcile chains` agree.
 */
describe("deposit returns on anvil", () => {
  const database = useTestDatabase();
  const dir = useTempDir("mpreturns-");
  let chain: EvmReconcileChain;
  let merchant: TestMerchant;
  const deposit = "0x00000000000000000000000000000000000d3b05";

  const cliEnv = () => {
    const file = join(dir, "chains.json");
    const base = {
      rpcUrl: chain.node.url,
      network: "regtest",
      tokens: [{ asset: "USDC", address: chain.usdc.address, decimals: 6 }],
    };
    writeFileSync(file, JSON.stringify({ chains: { BASE: base } }));
    return { DATABASE_URL: database.connectionString, CHAINS_CONFIG: file };
  };

  /** The payer pays the deposit address; the indexer confirms it (held: the customer is rejected). */
  async function heldDeposit(amount: bigint): Promise<string> {
    await transferToken(chain.node, chain.usdc, deposit, amount, { from: PAYER });
    await chain.settle();
    const { rows } = await database.db.query<{ id: string; hold_status: string | null; from_address: string }>(
      "SELECT id, hold_status, from_address FROM deposits WHERE amount_raw = $1 ORDER BY created_at DESC LIMIT 1",
      [amount.toString()],
    );
    expect(rows[0]?.hold_status).toBe("HELD");
    expect(rows[0]?.from_address.toLowerCase()).toBe(PAYER.address.toLowerCase());
    return rows[0]?.id ?? "";
  }

  /** Runs the pipeline and the settling pass until the return's send is confirmed and settled. */
  async function sendAndSettle(sendKey: string): Promise<number> {
    const pipeline = chain.pipeline();
    let settled = 0;
    try {
      for (let i = 0; i < 60; i++) {
        await pipeline.tick("BASE");
        await chain.node.mine(1);
        settled += await settleDepositReturns(database.db, transferTreasury, 50);
        const { rows } = await database.db.query<{ state: string }>(
          "SELECT state FROM treasury_sends WHERE idempotency_key = $1",
          [sendKey],
        );
        if (rows[0]?.state === "confirmed" && settled > 0) break;
      }
    } finally {
      await pipeline.stop();
    }
    return settled;
  }

  const owed = async () => {
    const { rows } = await database.db.query<{ balance: string }>(
      `SELECT b.balance::text FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
        WHERE a.kind = 'returns_payable'`,
    );
    return BigInt(rows[0]?.balance ?? "0");
  };

  beforeAll(async () => {
    const db = database.db;
    chain = await startEvmReconcileChain(db);
    merchant = await createMerchant(db);
    await addWallet(db, merchant, "BASE", deposit);
    await rejectCustomer(db, merchant);
    await sendNative(chain.node, chain.treasury, 10n * ETH);
    await transferToken(chain.node, chain.usdc, chain.treasury, 1_000n * USDC);
    await transferToken(chain.node, chain.usdc, PAYER.address, 100n * USDC);
    await chain.settle();
  }, 120_000);

  afterAll(async () => {
    await chain?.stop();
  });

  it("the CLI returns a held deposit to its sender once, less the fee; ledger check and reconcile chains agree", async () => {
    const db = database.db;
    const depositId = await heldDeposit(25n * USDC);
    const before = await tokenBalance(chain.node, chain.usdc, PAYER.address);

    const first = await runCli(
      ["deposits", "return", "--deposit", depositId, "--reason", "KYC rejected", "--json"],
      cliEnv(),
    );
    expect(first.code, first.stderr).toBe(0);
    const answer = JSON.parse(first.stdout);
    expect(answer).toMatchObject({
      deposit_id: depositId,
      state: "sending",
      chain: "BASE",
      asset: "USDC",
      amount: "24",
      network_fee: "1",
      send_key: `deposit-return:${depositId}`,
    });
    expect(answer.to.toLowerCase()).toBe(PAYER.address.toLowerCase());
    // Asked again (a retry, a crash before the answer): the same return, nothing more queued.
    const again = await runCli(["deposits", "return", "--deposit", depositId, "--json"], cliEnv());
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      state: "sending",
      send_key: answer.send_key,
      journal_entry_id: null,
    });
    const sends = await db.query<{ purpose: string; amount_raw: string }>(
      "SELECT purpose, amount_raw::text FROM treasury_sends WHERE purpose = 'return'",
    );
    expect(sends.rows).toEqual([{ purpose: "return", amount_raw: (24n * USDC).toString() }]);
    expect(await owed()).toBe(25_000_000n);
    expect((await checkLedger(db)).problems).toEqual([]);

    expect(await sendAndSettle(answer.send_key)).toBe(1);
    await chain.settle();
    expect(await tokenBalance(chain.node, chain.usdc, PAYER.address)).toBe(before + 24n * USDC);
    const stored = await db.query<{ state: string; entry_id: string | null }>(
      "SELECT state, entry_id FROM deposit_returns WHERE deposit_id = $1",
      [depositId],
    );
    expect(stored.rows[0]?.state).toBe("returned");
    const events = await db.query<{ type: string }>("SELECT type FROM events WHERE object_id = $1 ORDER BY seq", [
      depositId,
    ]);
    expect(events.rows.map((e) => e.type)).toEqual([
      "deposit.pending",
      "deposit.confirmed",
      "deposit.held",
      "deposit.returned",
      "deposit.return_sent",
    ]);
    expect(await owed()).toBe(0n);
    expect((await checkLedger(db)).problems).toEqual([]);
    const report = await reconcileChains(db, chain.targets());
    expect(report.lines.map((l) => [l.asset, l.status, l.difference])).toEqual([
      ["ETH", "agrees", "0"],
      ["USDC", "agrees", "0"],
    ]);
    expect(report.exitCode).toBe(0);

    // Settled once: more passes and another request send nothing more.
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(0);
    const replay = await db.tx((c) =>
      sendDepositReturn(c, { treasury: transferTreasury }, { depositId, networkFeeUsdMicros: 1_000_000n }),
    );
    expect(replay.state).toBe("returned");
    expect((await db.query("SELECT 1 FROM treasury_sends WHERE purpose = 'return'")).rowCount).toBe(1);
  }, 600_000);

  it("a return not worth more than its network fee is refused, said in the answer, and stays payable", async () => {
    const db = database.db;
    const depositId = await heldDeposit(USDC / 2n);
    const result = await runCli(["deposits", "return", "--deposit", depositId, "--reason", "KYC rejected"], cliEnv());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("owed to its payer");
    expect(result.stdout).toContain(
      "return stays payable: refused: the return (0.5 USDC) is not more than its network fee (1 USDC); it stays payable",
    );
    const stored = await db.query<{ state: string; send_key: string | null }>(
      "SELECT state, send_key FROM deposit_returns WHERE deposit_id = $1",
      [depositId],
    );
    expect(stored.rows).toEqual([{ state: "payable", send_key: null }]);
    expect(await owed()).toBe(500_000n);
    expect((await checkLedger(db)).problems).toEqual([]);
  }, 600_000);

  it("a reorg of the return's send before its confirmations: it stays sending, lands again, paid once", async () => {
    const db = database.db;
    const depositId = await heldDeposit(10n * USDC);
    const sent = await db.tx(async (c) => {
      await returnHeldDeposit(c, { depositId, reason: "compliance" });
      return sendDepositReturn(c, { treasury: transferTreasury }, { depositId, networkFeeUsdMicros: 1_000_000n });
    });
    expect(sent.state).toBe("sending");
    const before = await tokenBalance(chain.node, chain.usdc, PAYER.address);
    const pipeline = chain.pipeline();
    try {
      await pipeline.tick("BASE"); // signed, broadcast, mined by anvil's automine: 1 confirmation of 2
      const { rows } = await db.query<{ id: string }>("SELECT id FROM treasury_sends WHERE idempotency_key = $1", [
        sent.sendKey,
      ]);
      const sendId = rows[0]?.id ?? "";
      await chain.node.reorg(1, []); // its block leaves the chain, the transaction with it
      expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(0);
      expect((await findSend(db, sendId))?.state).not.toBe("confirmed");
    } finally {
      await pipeline.stop();
    }
    expect(await sendAndSettle(sent.sendKey ?? "")).toBe(1);
    await chain.settle();
    expect(await tokenBalance(chain.node, chain.usdc, PAYER.address)).toBe(before + 9n * USDC);
    expect((await checkLedger(db)).problems).toEqual([]);
    expect((await reconcileChains(db, chain.targets())).exitCode).toBe(0);
  }, 600_000);

  it("a return to a listed sender is refused (destination_sanctioned): the match is recorded, the deposit stays held", async () => {
    const db = database.db;
    // The sandbox's magic sanctioned address (docs/sanctions.md), impersonated on anvil, pays the deposit address.
    const listed = getAddress("0xbadbadbadbadbadbadbadbadbadbadbadbadbad0");
    await chain.node.testClient.impersonateAccount({ address: listed });
    await sendNative(chain.node, listed, ETH);
    await transferToken(chain.node, chain.usdc, listed, 7n * USDC);
    const data = encodeFunctionData({
      abi: testTokenAbi,
      functionName: "transfer",
      args: [getAddress(deposit), 7n * USDC],
    });
    await minedTransaction(
      chain.node,
      await sendFromUnlocked(chain.node, { from: listed, to: chain.usdc.address, data }),
    );
    await chain.settle();
    const { rows } = await db.query<{ id: string }>(
      "SELECT id FROM deposits WHERE amount_raw = $1 AND hold_status = 'HELD'",
      [(7n * USDC).toString()],
    );
    const depositId = rows[0]?.id ?? "";
    const refused = await runCli(["deposits", "return", "--deposit", depositId, "--reason", "listed"], cliEnv());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("sanctions list");
    const after = await db.query<{ hold_status: string }>("SELECT hold_status FROM deposits WHERE id = $1", [
      depositId,
    ]);
    expect(after.rows).toEqual([{ hold_status: "HELD" }]);
    const matches = await db.query<{ context: string; address: string }>(
      "SELECT context, address FROM sanctions_matches WHERE reference = $1",
      [depositId],
    );
    expect(matches.rows.map((m) => [m.context, m.address.toLowerCase()])).toEqual([["return", listed.toLowerCase()]]);
    expect((await db.query("SELECT 1 FROM deposit_returns WHERE deposit_id = $1", [depositId])).rowCount).toBe(0);
    expect((await checkLedger(db)).problems).toEqual([]);
  }, 600_000);
});
