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
import { type ApiHarness, startApiHarness } from "../support/api-harness.ts";

/** POST /v1/sandbox/deposits against a real anvil: the route moves real tokens on chain. */
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
    api = await startApiHarness({ overrides: { chains: { BASE: base }, faucets: { BASE: createEvmFaucet(base) } } });
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

  it("sends real USDC on the local chain to the merchant's address, once per idempotency key", async () => {
    const before = await tokenBalance(node, usdc, address);
    const first = await send({ address: address.toLowerCase(), asset: "USDC", amount: "25.50" }, "dep-1");
    expect(first.status, first.text).toBe(202);
    expect(first.body.data).toMatchObject({
      chain: "BASE",
      address,
      asset: "USDC",
      amount: "25.50",
      amount_raw: "25500000",
      status: "SUBMITTED",
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const replay = await send({ address: address.toLowerCase(), asset: "USDC", amount: "25.50" }, "dep-1");
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(first.body);
    expect(await tokenBalance(node, usdc, address)).toBe(before + 25_500_000n);
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

  it("answers 503 when the sandbox chain is down, and a retry with the same key is not refused", async () => {
    await node.stop();
    stopped = true;
    const down = await send({ address, asset: "USDC", amount: "1" }, "dep-down");
    expect(down.status).toBe(503);
    expect(down.body.error).toBe("service_unavailable");
    expect(down.text).not.toMatch(/\n\s+at /);
    // A 5xx is not stored: the retry runs again (and fails again while the node is down).
    expect((await send({ address, asset: "USDC", amount: "1" }, "dep-down")).status).toBe(503);
  });
});
