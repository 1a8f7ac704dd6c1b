import { ConfigError, resolveChainConfig, ServiceUnavailableError, ValidationError } from "@mp/core";
import {
  ANVIL_DEPLOYER,
  type AnvilNode,
  deployTestToken,
  minedTransaction,
  startAnvil,
  type TestToken,
  tokenBalance,
} from "@mp/test-nodes/evm";
import { isHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvmAdapter, createEvmFaucet } from "../src/index.ts";

const DEPOSIT_ADDRESS = "0x00000000000000000000000000000000DeaDBeef";

let node: AnvilNode;
let usdc: TestToken;

beforeAll(async () => {
  node = await startAnvil({ chainId: 42220 });
  // The local sandbox: anvil's account 0 deploys the test USDC, holds its supply and is the faucet.
  usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
});

afterAll(async () => {
  await node?.stop();
});

const sandboxConfig = (faucet: { key?: string } = { key: ANVIL_DEPLOYER.privateKey }) =>
  resolveChainConfig("CELO", {
    rpcUrl: node.url,
    tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
    ...(faucet.key === undefined ? {} : { faucetPrivateKey: faucet.key }),
  });

describe("createEvmFaucet", () => {
  it("lists the chain's native coin and configured tokens", () => {
    expect(createEvmFaucet(sandboxConfig()).assets()).toEqual([
      { asset: "CELO", address: null, decimals: 18 },
      { asset: "USDC", address: usdc.address, decimals: 6 },
    ]);
  });

  it("sends native coin and tokens that the adapter then sees arrive", async () => {
    const faucet = createEvmFaucet(sandboxConfig());
    const adapter = createEvmAdapter(sandboxConfig());
    const from = (await adapter.head()) + 1;
    // Concurrent sends: the faucet serialises them, so none races another for a nonce.
    const [coin, token] = await Promise.all([
      faucet.send(DEPOSIT_ADDRESS, "CELO", 2_000_000_000_000_000_000n),
      faucet.send(DEPOSIT_ADDRESS.toLowerCase(), "USDC", 25_000_000n),
    ]);
    for (const { txHash } of [coin, token]) {
      if (!isHex(txHash)) throw new Error(`not a transaction hash: ${txHash}`);
      expect((await minedTransaction(node, txHash)).status).toBe("success");
    }
    const found = await adapter.scan({ from, to: await adapter.head() }, new Set([DEPOSIT_ADDRESS.toLowerCase()]));
    expect(found.map((t) => [t.txHash, t.asset, t.amountRaw, t.to])).toEqual([
      [coin.txHash, "CELO", 2_000_000_000_000_000_000n, DEPOSIT_ADDRESS],
      [token.txHash, "USDC", 25_000_000n, DEPOSIT_ADDRESS],
    ]);
    expect(await tokenBalance(node, usdc, DEPOSIT_ADDRESS)).toBe(25_000_000n);
  });

  it("serialises sends of faucets of several chains sharing one node and key", async () => {
    const celo = createEvmFaucet(sandboxConfig());
    const base = createEvmFaucet(
      resolveChainConfig("BASE", { rpcUrl: node.url, faucetPrivateKey: ANVIL_DEPLOYER.privateKey }),
    );
    const sends = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? celo : base).send(DEPOSIT_ADDRESS, i % 2 === 0 ? "CELO" : "ETH", 1n),
      ),
    );
    expect(new Set(sends.map((s) => s.txHash)).size).toBe(6);
    for (const { txHash } of sends) {
      if (!isHex(txHash)) throw new Error(`not a transaction hash: ${txHash}`);
      expect((await minedTransaction(node, txHash)).status).toBe("success");
    }
  });

  it("refuses unknown assets, bad addresses and non-positive amounts", async () => {
    const faucet = createEvmFaucet(sandboxConfig());
    await expect(faucet.send(DEPOSIT_ADDRESS, "USDT", 1n)).rejects.toBeInstanceOf(ValidationError);
    await expect(faucet.send("0x1234", "CELO", 1n)).rejects.toBeInstanceOf(ValidationError);
    // Mixed case with a wrong EIP-55 checksum: a mistyped address is refused, not paid.
    await expect(faucet.send("0x00000000000000000000000000000000DEADbeef", "CELO", 1n)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(faucet.send(DEPOSIT_ADDRESS, "CELO", 0n)).rejects.toBeInstanceOf(ValidationError);
  });

  it("reports a faucet that cannot pay as a non-retryable error", async () => {
    const empty = createEvmFaucet(sandboxConfig({ key: node.accounts[1]?.privateKey ?? "" }));
    const error = await empty.send(DEPOSIT_ADDRESS, "USDC", 1n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ retryable: false });
  });

  it("needs a faucet key, and never echoes it", () => {
    expect(() => createEvmFaucet(sandboxConfig({}))).toThrow(ConfigError);
    const error = (() => {
      try {
        createEvmFaucet(sandboxConfig({ key: "0xnot-a-key-secret" }));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).not.toContain("not-a-key-secret");
  });
});
