/**
 * Child process of the scan benchmark: runs the Solana test node (so the node's serving does not
 * compete with the adapter for one event loop, as with a real RPC node) and fills it with
 * benchmark blocks, then reports the slot range and how many transfers hit the watch set.
 */

import { serveBenchNode, xorshift } from "@mp/test-nodes/bench";
import { startSolanaTestNode, type TransferSpec } from "@mp/test-nodes/solana";
import { Keypair } from "@solana/web3.js";
import { benchAddress } from "./deterministic-addresses.ts";

const SENDERS = 32;
const STRANGERS = 50_000;
const TOKEN_STRANGERS = 3_000;

serveBenchNode(
  () => startSolanaTestNode({ seed: "scan-bench" }),
  async (node, request) => {
    const random = xorshift(0x5eed);
    const mints = node.tokens.map((token) => token.address);
    const senders = Array.from({ length: SENDERS }, (_, i) =>
      Keypair.fromSeed(Uint8Array.from({ length: 32 }, () => i + 1)),
    );
    for (const sender of senders) {
      const address = sender.publicKey.toBase58();
      node.send([
        { kind: "sol", to: address, lamports: 10_000n * 1_000_000_000n },
        ...mints.map((mint): TransferSpec => ({ kind: "token", mint, to: address, amount: 10n ** 13n })),
      ]);
    }
    node.mine();

    const index = (size: number) => Math.floor(random() * size);
    const watched = () => benchAddress("watch", index(request.watchedAddresses));
    const stranger = (pool: number) => benchAddress("stranger", index(pool));
    let expectedTransfers = 0;
    const firstSlot = node.head() + 1;
    for (let b = 0; b < request.blocks; b++) {
      for (let t = 0; t < request.transactionsPerBlock; t++) {
        const hit = random() < request.hitRate;
        const roll = random();
        const lamports = BigInt(1_000_000 + Math.floor(random() * 1_000_000_000));
        const specs: TransferSpec[] = [];
        if (roll < 0.4) {
          specs.push({ kind: "sol", to: hit ? watched() : stranger(STRANGERS), lamports });
        } else if (roll < 0.5) {
          specs.push({ kind: "solViaProgram", to: hit ? watched() : stranger(STRANGERS), lamports });
        } else if (roll < 0.9) {
          const amount = BigInt(1 + Math.floor(random() * 5_000_000_000));
          const mint = mints[index(mints.length)] ?? "";
          specs.push({ kind: "token", mint, to: hit ? watched() : stranger(TOKEN_STRANGERS), amount });
        } else {
          specs.push({ kind: "sol", to: hit ? watched() : stranger(STRANGERS), lamports });
          specs.push({ kind: "memo", text: `invoice ${b}-${t}` });
        }
        if (hit) expectedTransfers++;
        const from = senders[t % SENDERS];
        if (!from) throw new Error("no sender");
        node.send(specs, { from, version: t % 2 === 0 ? "legacy" : 0 });
      }
      node.mine();
    }
    // A real RPC node serves stored blocks; render each one now (the test node caches the answer)
    // so the timed scan measures the adapter, not the test node's first serialisation.
    const lastSlot = node.head();
    for (let slot = firstSlot; slot <= lastSlot; slot++) {
      const params = [
        slot,
        {
          encoding: "jsonParsed",
          transactionDetails: "full",
          maxSupportedTransactionVersion: 0,
          rewards: false,
          commitment: "confirmed",
        },
      ];
      await fetch(node.url, {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: slot, method: "getBlock", params }),
      }).then((r) => r.arrayBuffer());
    }
    return { from: firstSlot, to: lastSlot, expectedTransfers };
  },
);
