import { sendQueuedFaucetTransfer } from "@mp/api";
import { createEvmFaucet } from "@mp/chain-evm";
import { resolveChainConfig } from "@mp/core";
import {
  ANVIL_DEPLOYER,
  type AnvilNode,
  deployTestToken,
  startAnvil,
  type TestToken,
  tokenBalance,
} from "@mp/test-nodes/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, eventually, startApiHarness } from "../support/api-harness.ts";

/**
 * POST /v1/sandbox/deposits against a real anvil: the route queues the send in its transaction and
 * the worker moves real tokens on chain after commit.
 */
describe("POST /v1/sandbox/deposits", () => {
  let node: AnvilNode;
  let usdc: TestToken;
  let api: ApiHarness;
  let key: string;
  let address: string;
  let solanaAddress: string;
  let stopped = false;

  beforeAll(async () => {
    node = await startAnvil({ chainId: 84532 });
    usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    const base = resolveChainConfig("BASE", {
      rpcUrl: node.url,
      tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
      faucetPrivateKey: ANVIL_DEPLOYER.privateKey,
    });
    api = await startApiHarness({
      workers: true,
      overrides: { chains: { BASE: base }, faucets: { BASE: createEvmFaucet(base) } },
    });
    key = (await api.merchant()).apiKey;
    const customer = await api.call(key, "/v1/customers", {
      method: "POST",
      idempotencyKey: "c",
      json: { type: "INDIVIDUAL", first_name: "Sam", last_name: "Box" },
    });
    // Wallet index 0 of account 0 under the test mnemonic is anvil's own account 0 (the faucet):
    // take the second wallet so the faucet does not pay itself.
    let wallet: Awaited<ReturnType<ApiHarness["call"]>> | undefined;
    for (const n of [0, 1]) {
      wallet = await api.call(key, "/v1/wallets", {
        method: "POST",
        idempotencyKey: `w${n}`,
        json: { customer_id: customer.body.data.id, label: `sandbox ${n}` },
      });
    }
    if (!wallet) throw new Error("no wallet");
    const destinations = wallet.body.data.destinations as Array<{ chain: string; address: string }>;
    address = destinations.find((d) => d.chain === "BASE")!.address;
    solanaAddress = destinations.find((d) => d.chain === "SOLANA")!.address;
  });
  afterAll(async () => {
    await api?.stop();
    if (!stopped) await node?.stop();
  });

  const send = (json: unknown, idempotencyKey: string = crypto.randomUUID(), apiKey = key) =>
    api.call(apiKey, "/v1/sandbox/deposits", { method: "POST", idempotencyKey, json });

  /** The send as GET /v1/sandbox/deposits/{id} shows it once it left QUEUED/SENDING. */
  const settled = (id: string) =>
    eventually(async () => {
      const got = await api.call(key, `/v1/sandbox/deposits/${id}`);
      return ["QUEUED", "SENDING"].includes(got.body.data.status) ? undefined : got.body.data;
    }, 20_000);

  it("queues real USDC for the local chain, sends it once after commit, and replays the same answer", async () => {
    const before = await tokenBalance(node, usdc, address);
    const first = await send({ address: address.toLowerCase(), asset: "USDC", amount: "25.50" }, "dep-1");
    expect(first.status, first.text).toBe(202);
    expect(first.body.data).toMatchObject({
      chain: "BASE",
      address,
      asset: "USDC",
      amount: "25.50",
      amount_raw: "25500000",
      status: "QUEUED",
      tx_hash: null,
    });
    const replay = await send({ address: address.toLowerCase(), asset: "USDC", amount: "25.50" }, "dep-1");
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(first.body);
    const sent = await settled(first.body.data.id);
    expect(sent).toMatchObject({ status: "SUBMITTED", tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await tokenBalance(node, usdc, address)).toBe(before + 25_500_000n);
    // The send is the merchant's own: another merchant gets 404.
    const other = (await api.merchant()).apiKey;
    expect((await api.call(other, `/v1/sandbox/deposits/${first.body.data.id}`)).status).toBe(404);
  });

  it("a crash between commit and send neither loses nor repeats it; one interrupted during the send is not resent", async () => {
    const before = await tokenBalance(node, usdc, address);
    // As if the process died right after COMMIT: the row and its job exist, nothing was sent.
    const id = crypto.randomUUID();
    const { rows } = await api.db.query<{ wallet_id: string; id: string }>(
      "SELECT wallet_id, id FROM destinations WHERE address = $1 AND chain = 'BASE'",
      [address],
    );
    const destination = rows[0];
    if (!destination) throw new Error("no destination");
    const merchantId = (
      await api.db.query<{ merchant_id: string }>("SELECT merchant_id FROM wallets WHERE id = $1", [
        destination.wallet_id,
      ])
    ).rows[0]?.merchant_id;
    await api.db.query(
      `INSERT INTO sandbox_faucet_sends (id, merchant_id, wallet_id, destination_id, chain, address, asset, amount, amount_raw)
       VALUES ($1, $2, $3, $4, 'BASE', $5, 'USDC', '1.00', 1000000)`,
      [id, merchantId, destination.wallet_id, destination.id, address],
    );
    // The worker after the restart, and a duplicate delivery of the same job: sent once.
    await sendQueuedFaucetTransfer(api.deps, { sendId: id });
    await sendQueuedFaucetTransfer(api.deps, { sendId: id });
    expect(await tokenBalance(node, usdc, address)).toBe(before + 1_000_000n);
    expect((await api.call(key, `/v1/sandbox/deposits/${id}`)).body.data.status).toBe("SUBMITTED");

    // A crash during the send (SENDING committed, no hash recorded): the retry does not send twice.
    await api.db.query("UPDATE sandbox_faucet_sends SET status = 'QUEUED', tx_hash = NULL WHERE id = $1", [id]);
    await api.db.query("UPDATE sandbox_faucet_sends SET status = 'SENDING' WHERE id = $1", [id]);
    await sendQueuedFaucetTransfer(api.deps, { sendId: id });
    const failed = (await api.call(key, `/v1/sandbox/deposits/${id}`)).body.data;
    expect(failed).toMatchObject({ status: "FAILED", last_error: expect.stringContaining("not sent again") });
    expect(await tokenBalance(node, usdc, address)).toBe(before + 1_000_000n);
  });

  it("refuses production keys (403), foreign or unknown addresses (404) and bad input (400), moving nothing", async () => {
    const before = await tokenBalance(node, usdc, address);
    const live = (await api.merchant("production")).apiKey;
    expect((await send({ address, asset: "USDC", amount: "1" }, undefined, live)).status).toBe(403);
    const other = (await api.merchant()).apiKey;
    const foreign = await send({ address, asset: "USDC", amount: "1" }, undefined, other);
    expect(foreign.status).toBe(404);
    const badAsset = await send({ address, asset: "DOGE", amount: "1" });
    expect(badAsset.status).toBe(400);
    expect(badAsset.body.message).toContain("asset");
    const tooPrecise = await send({ address, asset: "USDC", amount: "1.0000001" });
    expect(tooPrecise.status).toBe(400);
    expect((await send({ address, asset: "USDC", amount: "-1" })).status).toBe(400);
    expect((await send({ address, asset: "USDC", amount: "0" })).status).toBe(400);
    expect((await send({ address, asset: "USDC", amount: "1", chain: "SOLANA" })).status).toBe(400);
    // A chain with no local sandbox node in this deployment.
    const noFaucet = await send({ address: solanaAddress, asset: "SOL", amount: "1" });
    expect(noFaucet.status).toBe(409);
    expect(await tokenBalance(node, usdc, address)).toBe(before);
  });

  it("queues while the sandbox chain is down (202, no 5xx) and keeps retrying; the replay answers the same", async () => {
    await node.stop();
    stopped = true;
    const down = await send({ address, asset: "USDC", amount: "1" }, "dep-down");
    expect(down.status, down.text).toBe(202);
    expect(down.body.data.status).toBe("QUEUED");
    const again = await send({ address, asset: "USDC", amount: "1" }, "dep-down");
    expect(again.text).toBe(down.text);
    const retried = await eventually(async () => {
      const got = await api.call(key, `/v1/sandbox/deposits/${down.body.data.id}`);
      return got.body.data.last_error ? got.body.data : undefined;
    }, 20_000);
    expect(retried).toMatchObject({ status: "QUEUED", tx_hash: null, last_error: "the sandbox chain did not answer" });
  });
});
