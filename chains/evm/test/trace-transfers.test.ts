import {
  type ChainAdapter,
  ChainMisconfiguredError,
  chainConfigSchema,
  type EvmTraceMethod,
  resolveChainConfig,
} from "@mp/core";
import { forwardNative, forwardThenRevert, forwardViaRevertingRelay, sendNative } from "@mp/test-nodes/evm";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { useAnvilWithForwarder } from "../../../test/support/anvil-forwarder.ts";
import { createEvmAdapter } from "../src/index.ts";

/**
 * Issue 10 item 9: native coin a smart-contract wallet sends (an internal call of a contract, as
 * a Safe or an ERC-4337 account pays) is found through the node's traces, on real anvil with a
 * real contract (contracts/TestToken.sol's Forwarder).
 */

const ETHER = 10n ** 18n;
const ALICE = "0x00000000000000000000000000000000000a11ce";
const BOB = "0x0000000000000000000000000000000000000b0b";
const STRANGER = "0x000000000000000000000000000000000005EE11";

const { node, contracts } = useAnvilWithForwarder();

const adapterWith = (traces?: EvmTraceMethod): ChainAdapter =>
  createEvmAdapter(resolveChainConfig("BASE", { rpcUrl: node.url, ...(traces ? { traces } : {}) }));

const watching = (...addresses: string[]) => new Set(addresses.map((a) => a.toLowerCase()));

/** Runs `act`, returns the blocks it mined. */
async function minedBy(act: () => Promise<unknown>): Promise<{ from: number; to: number }> {
  const from = (await node.blockNumber()) + 1;
  await act();
  return { from, to: await node.blockNumber() };
}

describe.each(["trace_block", "debug_traceBlockByNumber"] as const)("traces: %s", (traces) => {
  const adapter = () => adapterWith(traces);

  it("finds native coin a contract forwards to a watched address, at trace:<path>, the same at every rescan", async () => {
    let paid: { txHash: string; blockNumber: number; blockHash: string } | undefined;
    const range = await minedBy(async () => {
      paid = await forwardNative(node, contracts, [
        { to: STRANGER, amount: ETHER },
        { to: ALICE, amount: 2n * ETHER },
      ]);
    });
    const found = await adapter().scan(range, watching(ALICE));
    expect(found).toEqual([
      {
        txHash: paid?.txHash,
        position: "trace:1",
        blockHeight: paid?.blockNumber,
        blockHash: paid?.blockHash,
        from: contracts.forwarder,
        to: getAddress(ALICE),
        asset: "ETH",
        contractAddress: null,
        amountRaw: 2n * ETHER,
        decimals: 18,
      },
    ]);
    expect(await adapter().scan(range, watching(ALICE))).toEqual(found);
  });

  it("gives each watched recipient of one call its own transfer", async () => {
    const range = await minedBy(() =>
      forwardNative(node, contracts, [
        { to: ALICE, amount: 1n },
        { to: BOB, amount: 2n },
        { to: ALICE, amount: 3n },
      ]),
    );
    const found = await adapter().scan(range, watching(ALICE, BOB));
    expect(found.map((t) => [t.position, t.to, t.amountRaw])).toEqual([
      ["trace:0", getAddress(ALICE), 1n],
      ["trace:1", getAddress(BOB), 2n],
      ["trace:2", getAddress(ALICE), 3n],
    ]);
  });

  it("never credits an internal payment undone by a reverting frame above it, nor one of a reverted transaction", async () => {
    let reverted: { status: string } | undefined;
    const range = await minedBy(async () => {
      const relayed = await forwardViaRevertingRelay(node, contracts, ALICE, 5n);
      expect(relayed.status).toBe("success");
      reverted = await forwardThenRevert(node, contracts, ALICE, 7n);
    });
    expect(reverted?.status).toBe("reverted");
    expect(await node.publicClient.getBalance({ address: getAddress(ALICE) })).toBe(
      await node.publicClient.getBalance({ address: getAddress(ALICE), blockNumber: BigInt(range.from - 1) }),
    );
    expect(await adapter().scan(range, watching(ALICE))).toEqual([]);
  });

  it("counts a plain transfer once, on the native path, not again from its trace", async () => {
    let paid: { txHash: string } | undefined;
    const range = await minedBy(async () => {
      paid = await sendNative(node, BOB, 11n);
    });
    const found = await adapter().scan(range, watching(BOB));
    expect(found.map((t) => [t.txHash, t.position, t.amountRaw])).toEqual([[paid?.txHash, "native", 11n]]);
  });
});

describe("traces off (the default)", () => {
  it("does not see internal payments (and asks the node for no trace)", async () => {
    const range = await minedBy(() => forwardNative(node, contracts, [{ to: ALICE, amount: 9n }]));
    expect(await adapterWith().scan(range, watching(ALICE))).toEqual([]);
    expect(await adapterWith("trace_block").scan(range, watching(ALICE))).toHaveLength(1);
  });
});

describe("the traces setting", () => {
  it("naming a method the node does not offer stops the chain with a clear, non-retryable error", async () => {
    const range = await minedBy(() => forwardNative(node, contracts, [{ to: ALICE, amount: 1n }]));
    // A node without trace_block: that method's calls get -32601, every other call its answer.
    const noTraces: typeof fetch = async (input, init) => {
      const parsed: unknown = JSON.parse(String(init?.body));
      const requests = [parsed].flat() as { id: number; method: string }[];
      const others = requests.filter((r) => r.method !== "trace_block");
      const forwarded =
        others.length === 0
          ? []
          : ([await (await fetch(input, { ...init, body: JSON.stringify(others) })).json()].flat() as { id: number }[]);
      const answers = requests.map(
        (r) =>
          forwarded.find((a) => a.id === r.id) ?? {
            jsonrpc: "2.0",
            id: r.id,
            error: { code: -32601, message: "the method trace_block does not exist/is not available" },
          },
      );
      return Response.json(Array.isArray(parsed) ? answers : answers[0]);
    };
    const adapter = createEvmAdapter(resolveChainConfig("BASE", { rpcUrl: node.url, traces: "trace_block" }), {
      fetch: noTraces,
    });
    const error = await adapter.scan(range, watching(ALICE)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainMisconfiguredError);
    expect(error).toMatchObject({ code: "chain_misconfigured", retryable: false });
    expect(String(error)).toContain('BASE.traces is "trace_block"');
  });

  it("is off by default and takes only the two block-trace methods", () => {
    expect(resolveChainConfig("BASE", { rpcUrl: "http://127.0.0.1:1" }).traces).toBe("off");
    for (const traces of ["off", "trace_block", "debug_traceBlockByNumber"]) {
      expect(chainConfigSchema.parse({ rpcUrl: "http://127.0.0.1:1", traces }).traces).toBe(traces);
    }
    const refused = chainConfigSchema.safeParse({ rpcUrl: "http://127.0.0.1:1", traces: "debug_traceTransaction" });
    expect(refused.error?.issues[0]?.path).toEqual(["traces"]);
    expect(() => resolveChainConfig("TRON", { rpcUrl: "http://127.0.0.1:1", traces: "trace_block" })).toThrow(
      expect.objectContaining({ name: "ConfigError", message: expect.stringContaining("TRON.traces") }),
    );
    expect(resolveChainConfig("TRON", { rpcUrl: "http://127.0.0.1:1", traces: "off" }).traces).toBe("off");
  });
});
