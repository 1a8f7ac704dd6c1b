import { ConfigError, EVM_CHAINS, resolveChainConfig, ServiceUnavailableError } from "@mp/core";
import { getAddress, HttpRequestError, RpcRequestError, TimeoutError } from "viem";
import { describe, expect, it } from "vitest";
import { AdaptiveBlockRange } from "../src/adaptive-block-range.ts";
import { resolveEvmAssets } from "../src/evm-assets.ts";
import { createEvmAdapter } from "../src/index.ts";
import { describeRpcFailure, isLogRangeRejection, rpcFailureError } from "../src/rpc-failure.ts";

describe("resolveEvmAssets", () => {
  it("takes each chain's native coin from data, 18 decimals", () => {
    const natives = Object.fromEntries(
      EVM_CHAINS.map((chain) => [
        chain,
        resolveEvmAssets(resolveChainConfig(chain, { rpcUrl: "http://x.invalid" })).native,
      ]),
    );
    expect(natives).toEqual({
      BASE: { asset: "ETH", address: null, decimals: 18 },
      ARBITRUM: { asset: "ETH", address: null, decimals: 18 },
      POLYGON: { asset: "POL", address: null, decimals: 18 },
      CELO: { asset: "CELO", address: null, decimals: 18 },
      BSC: { asset: "BNB", address: null, decimals: 18 },
      ETHEREUM: { asset: "ETH", address: null, decimals: 18 },
      OPTIMISM: { asset: "ETH", address: null, decimals: 18 },
    });
  });

  it("checksums configured token contracts and matches them lowercase", () => {
    const assets = resolveEvmAssets(
      resolveChainConfig("BSC", {
        rpcUrl: "http://x.invalid",
        tokens: [{ asset: "USDT", address: "0x55d398326f99059ff775485246999027b3197955", decimals: 18 }],
      }),
    );
    expect(assets.tokens).toEqual([
      {
        asset: "USDT",
        address: "0x55d398326f99059fF775485246999027B3197955",
        key: "0x55d398326f99059ff775485246999027b3197955",
        decimals: 18,
      },
    ]);
    expect(assets.tokenByContract.get("0x55d398326f99059ff775485246999027b3197955")?.asset).toBe("USDT");
  });

  it("refuses bad token config and non-EVM chains with a ConfigError", () => {
    const withTokens = (tokens: { asset: string; address: string; decimals: number }[]) =>
      resolveChainConfig("BASE", { rpcUrl: "http://x.invalid", tokens });
    expect(() => resolveEvmAssets(withTokens([{ asset: "USDC", address: "0x1234", decimals: 6 }]))).toThrow(
      ConfigError,
    );
    // A checksummed address with one letter's case flipped fails EIP-55: a typo, not an address.
    const good = getAddress("0x833589fcd6edb6e08f4c7c32d4f71b54bda02913");
    const at = good.search(/[a-fA-F]/u);
    const flipped =
      good.charAt(at) === good.charAt(at).toUpperCase() ? good.charAt(at).toLowerCase() : good.charAt(at).toUpperCase();
    const typo = `${good.slice(0, at)}${flipped}${good.slice(at + 1)}`;
    expect(() => resolveEvmAssets(withTokens([{ asset: "USDC", address: good, decimals: 6 }]))).not.toThrow();
    expect(() => resolveEvmAssets(withTokens([{ asset: "USDC", address: typo, decimals: 6 }]))).toThrow(ConfigError);
    const usdc = { asset: "USDC", address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", decimals: 6 };
    expect(() => resolveEvmAssets(withTokens([usdc, { ...usdc, asset: "USDbC" }]))).toThrow(ConfigError);
    expect(() => resolveEvmAssets(withTokens([{ ...usdc, asset: "ETH" }]))).toThrow(ConfigError);
    expect(() => createEvmAdapter(resolveChainConfig("TRON", { rpcUrl: "http://x.invalid" }))).toThrow(ConfigError);
  });
});

describe("AdaptiveBlockRange", () => {
  it("starts at the limit, halves the refused span, doubles back on success up to the limit", () => {
    const range = new AdaptiveBlockRange(2000);
    expect(range.size).toBe(2000);
    expect(range.shrink(2000)).toBe(true);
    expect(range.size).toBe(1000);
    expect(range.shrink(300)).toBe(true); // a short tail span refused: halve what was asked
    expect(range.size).toBe(150);
    range.grow();
    expect(range.size).toBe(300);
    for (let i = 0; i < 10; i++) range.grow();
    expect(range.size).toBe(2000);
  });

  it("cannot split a single block", () => {
    const range = new AdaptiveBlockRange(4);
    expect(range.shrink(2)).toBe(true);
    expect(range.size).toBe(1);
    expect(range.shrink(1)).toBe(false);
    expect(range.size).toBe(1);
    expect(() => new AdaptiveBlockRange(0)).toThrow(RangeError);
  });
});

describe("RPC failures", () => {
  const url = "https://base-mainnet.example.com/v2/abcdef0123456789";

  it("turns every failure into a retryable ServiceUnavailableError that never shows the URL", () => {
    const failures = [
      new HttpRequestError({ url, status: 503, details: `upstream ${url} down` }),
      new HttpRequestError({ url, cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }),
      new TimeoutError({ body: { method: "eth_getLogs" }, url }),
      new RpcRequestError({ body: {}, url, error: { code: -32000, message: `header not found at ${url}` } }),
    ];
    for (const failure of failures) {
      const error = rpcFailureError("eth_getLogs", failure, url);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error.retryable).toBe(true);
      const everything = JSON.stringify({ message: error.message, details: error.details, cause: String(error.cause) });
      expect(everything).not.toContain("abcdef0123456789");
      expect(everything).not.toContain("base-mainnet.example.com");
    }
    expect(rpcFailureError("eth_blockNumber", failures[1], url).failure).toMatchObject({
      reason: "unreachable",
      message: "ECONNREFUSED: connect ECONNREFUSED",
    });
  });

  it("recognises range refusals by code, words, HTTP 413, size and time; not other errors", () => {
    const rpc = (code: number, message: string) =>
      describeRpcFailure("eth_getLogs", new RpcRequestError({ body: {}, url, error: { code, message } }), url);
    expect(isLogRangeRejection(rpc(-32005, "limit exceeded"))).toBe(true);
    expect(isLogRangeRejection(rpc(-32000, "block range is too wide"))).toBe(true);
    expect(isLogRangeRejection(rpc(-32602, "exceed maximum block range: 5000"))).toBe(true);
    expect(isLogRangeRejection(rpc(-32000, "header not found"))).toBe(false);
    expect(isLogRangeRejection(rpc(-32601, "method not found"))).toBe(false);
    const http = (status: number) =>
      describeRpcFailure("eth_getLogs", new HttpRequestError({ url, status, details: "" }), url);
    expect(isLogRangeRejection(http(413))).toBe(true);
    expect(isLogRangeRejection(http(502))).toBe(false);
    expect(isLogRangeRejection(describeRpcFailure("eth_getLogs", new TimeoutError({ body: {}, url }), url))).toBe(true);
  });
});
