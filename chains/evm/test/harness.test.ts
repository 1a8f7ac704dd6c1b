import { readFileSync } from "node:fs";
import {
  ANVIL_ACCOUNTS,
  abiSignatures,
  CONTRACTS_SOURCE_URL,
  deployTestToken,
  loadContractsArtifact,
  mintToken,
  seedTransfers,
  startAnvil,
  testTokenAbi,
  tokenBalance,
  transferToken,
  unwatchedAddress,
} from "@mp/test-nodes/evm";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { compileTestContracts } from "../../../test/nodes/src/evm/compile.ts";

/** The EVM test harness itself: contracts artifact, anvil process, token helpers, seeding. */

describe("contracts artifact", () => {
  it("is what solc makes of the checked-in source today (run compile.ts after editing the .sol)", () => {
    const fresh = compileTestContracts();
    const checkedIn = loadContractsArtifact();
    expect(checkedIn.compiler).toBe(fresh.compiler);
    expect(checkedIn.sourceSha256).toBe(fresh.sourceSha256);
    expect(checkedIn.contracts.TestToken.bytecode).toBe(fresh.contracts.TestToken.bytecode);
    expect(checkedIn.contracts.RevertingReceiver.bytecode).toBe(fresh.contracts.RevertingReceiver.bytecode);
    expect(checkedIn.contracts.TestToken.abi).toEqual(fresh.contracts.TestToken.abi);
    expect(readFileSync(CONTRACTS_SOURCE_URL, "utf8")).toContain("function batchTransfer(");
  });

  it("has exactly the ABI the helpers are typed with", () => {
    expect(abiSignatures(testTokenAbi)).toEqual(abiSignatures(loadContractsArtifact().contracts.TestToken.abi));
    expect(abiSignatures(testTokenAbi)).toContain(
      "function batchTransfer(address[] to,uint256[] amounts)(bool) nonpayable",
    );
  });
});

describe("anvil harness", () => {
  it("pins anvil's public dev keys to their addresses", () => {
    for (const account of ANVIL_ACCOUNTS) expect(privateKeyToAccount(account.privateKey).address).toBe(account.address);
  });

  it("starts nodes on distinct free ports with the chain id asked for, and stops them", async () => {
    const [a, b] = await Promise.all([startAnvil({ chainId: 10 }), startAnvil()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(await a.publicClient.getChainId()).toBe(10);
      expect(await b.publicClient.getChainId()).toBe(31337);
      await a.mine(4);
      expect(await a.blockNumber()).toBe(4);
      const snapshot = await a.snapshot();
      await a.mine(3);
      await a.revert(snapshot);
      expect(await a.blockNumber()).toBe(4);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    await a.stop(); // idempotent
    await expect(fetch(a.url, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  it("mines on a timer with blockTimeSeconds", async () => {
    const node = await startAnvil({ blockTimeSeconds: 1 });
    try {
      const start = await node.blockNumber();
      // Polled up to a generous bound, not slept for 2.2 s: on a loaded machine anvil may lag its timer.
      const deadline = Date.now() + 60_000;
      while ((await node.blockNumber()) < start + 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await node.blockNumber()).toBeGreaterThanOrEqual(start + 2);
    } finally {
      await node.stop();
    }
  });

  it("deploys a token whose supply belongs to the deployer, who alone can mint", async () => {
    const node = await startAnvil();
    try {
      const token = await deployTestToken(node, {
        name: "Tether USD",
        symbol: "USDT",
        decimals: 18,
        initialSupply: 1000n,
      });
      const [deployer, other] = ANVIL_ACCOUNTS;
      if (!deployer || !other) throw new Error("accounts missing");
      expect(await tokenBalance(node, token, deployer.address)).toBe(1000n);
      await mintToken(node, token, other.address, 5n);
      expect(await tokenBalance(node, token, other.address)).toBe(5n);
      const notOwner = await mintToken(node, token, other.address, 5n, { from: other, gas: 100_000n });
      expect(notOwner.status).toBe("reverted");
      const paid = await transferToken(node, token, deployer.address, 1n, { from: other });
      expect(paid.status).toBe("success");
      const tooMuch = await transferToken(node, token, deployer.address, 10n, { from: other, gas: 100_000n });
      expect(tooMuch.status).toBe("reverted");
      expect(await tokenBalance(node, token, other.address)).toBe(4n);
    } finally {
      await node.stop();
    }
  });

  it("seeds token transfers over consecutive blocks, a tenth of them to the watched recipients", async () => {
    const node = await startAnvil();
    try {
      const token = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
      const recipients = ["0x00000000000000000000000000000000000a11ce", "0x0000000000000000000000000000000000000b0b"];
      const seeded = await seedTransfers(node, token, { transfers: 300, blocks: 30, recipients });
      expect(seeded.toBlock - seeded.fromBlock + 1).toBe(30);
      expect(seeded.watchedTransfers).toBe(30);
      let watchedTotal = 0n;
      for (const recipient of recipients) {
        const received = seeded.receivedByRecipient.get(getAddress(recipient)) ?? 0n;
        expect(await tokenBalance(node, token, recipient)).toBe(received);
        watchedTotal += received;
      }
      expect(watchedTotal).toBeGreaterThan(0n);
      const perBlock = await Promise.all(
        [seeded.fromBlock, seeded.toBlock].map((n) =>
          node.publicClient.getBlockTransactionCount({ blockNumber: BigInt(n) }),
        ),
      );
      expect(perBlock).toEqual([1, 1]);
      expect(await node.testClient.getAutomine()).toBe(true);
      expect(unwatchedAddress(1)).not.toBe(unwatchedAddress(2));
    } finally {
      await node.stop();
    }
  });
});
