import { silentLogger } from "@mp/core";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { tokenBalance, transferToken } from "@mp/test-nodes/evm";
import type { Hex } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSender } from "../src/chain-sender.ts";
import { createSendPipeline, type SendPipeline } from "../src/send-pipeline.ts";
import { findSend, requestSend, type SendRequest } from "../src/send-requests.ts";
import { type EvmTreasuryHarness, freshAddress, startEvmTreasury, until } from "./support/evm-treasury.ts";

let t: TestDatabase;
let h: EvmTreasuryHarness;
const pipelines: SendPipeline[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  h = await startEvmTreasury(t.db);
}, 60_000);

afterEach(async () => {
  await Promise.all(pipelines.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  await h?.node.stop();
  await t?.drop();
});

const pipeline = (sender: ChainSender = h.sender()): SendPipeline => {
  const p = createSendPipeline({
    db: t.db,
    senders: [sender],
    logger: silentLogger(),
    confirmations: { BASE: 2 },
    leaseSeconds: 2,
  });
  pipelines.push(p);
  return p;
};

let keys = 0;
const send = async (overrides: Partial<SendRequest> & Pick<SendRequest, "asset" | "to" | "amountRaw">) =>
  (
    await requestSend(t.db, {
      chain: "BASE",
      purpose: "operator",
      idempotencyKey: `evm-${keys++}`,
      ...overrides,
    })
  ).send;

/** One pass, then a block (automine only mines when a transaction arrives: confirmations need more). */
const tickAndMine = (p: SendPipeline) => async () => {
  await p.tick("BASE");
  await h.node.mine(1);
};

const ethBalance = (address: string) => h.node.publicClient.getBalance({ address: address as Hex });

interface AttemptRow {
  id: string;
  tx_hash: Hex;
  state: string;
  nonce: number;
  replaces: string | null;
  fee: Record<string, string>;
}

const attemptsOf = async (sendId: string): Promise<AttemptRow[]> => {
  const { rows } = await t.db.query<AttemptRow>(
    `SELECT a.id, a.tx_hash, a.state, (a.guard->>'nonce')::int AS nonce, a.replaces, a.fee
       FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1 ORDER BY a.created_at`,
    [sendId],
  );
  return rows;
};

/** The receipts the chain holds for these hashes (null: not in the canonical chain). */
const receipts = (hashes: Hex[]) =>
  Promise.all(
    hashes.map((hash) =>
      h.node.publicClient.getTransactionReceipt({ hash }).catch((error: unknown) => {
        if (error instanceof Error && error.name === "TransactionReceiptNotFoundError") return null;
        throw error;
      }),
    ),
  );

describe("the EVM send pipeline on anvil", () => {
  it("sends the native coin and a token, each confirmed once with its confirmations", async () => {
    const p = pipeline();
    const to = freshAddress();
    const eth = await send({ asset: "ETH", to, amountRaw: 1_234_000_000_000_000n });
    const usdc = await send({ asset: "USDC", to, amountRaw: 42_500_000n });
    await p.tick("BASE");
    // Broadcast and mined (automine), not yet confirmed: 2 confirmations are needed.
    expect((await findSend(t.db, eth.id))?.state).toBe("broadcast");
    await until(t.db, [eth.id, usdc.id], "confirmed", tickAndMine(p));
    expect(await ethBalance(to)).toBe(1_234_000_000_000_000n);
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(42_500_000n);
    for (const id of [eth.id, usdc.id]) {
      const attempts = await attemptsOf(id);
      expect(attempts.map((a) => a.state)).toEqual(["mined"]);
      const [receipt] = await receipts(attempts.map((a) => a.tx_hash));
      expect(receipt?.status).toBe("success");
      expect((await findSend(t.db, id))?.txHash).toBe(attempts[0]?.tx_hash);
    }
  });
});
