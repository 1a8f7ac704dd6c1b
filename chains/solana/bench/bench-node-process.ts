/**
 * Child process of the scan benchmark: runs the Solana test node (so the node's serving does not
 * compete with the adapter for one event loop, as with a real RPC node) and fills it with
 * benchmark blocks, then reports the slot range and how many transfers hit the watch set.
 */

import { serveBenchNode } from "@mp/test-nodes/bench";
import { startSolanaTestNode, type TransferSpec } from "@mp/test-nodes/solana";
import { Keypair } from "@solana/web3.js";
import { benchAddress } from "./deterministic-addresses.ts";

const SENDERS = 32;
const STRANGERS = 50_000;
const TOKEN_STRANGERS = 3_000;

serveBenchNode(() => startSolanaTestNode({ seed: "scan-bench" }), {
  seed: 0x5eed,
  fund(node) {
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
    return { senders, mints };
  },
  queue(node, { senders, mints }, tx) {
    const to = (strangers: number) =>
      tx.hit ? benchAddress("watch", tx.watchedIndex()) : benchAddress("stranger", tx.pick(strangers));
    const roll = tx.random();
    const lamports = BigInt(1_000_000 + Math.floor(tx.random() * 1_000_000_000));
    const specs: TransferSpec[] = [];
    if (roll < 0.4) {
      specs.push({ kind: "sol", to: to(STRANGERS), lamports });
    } else if (roll < 0.5) {
      specs.push({ kind: "solViaProgram", to: to(STRANGERS), lamports });
    } else if (roll < 0.9) {
      const amount = BigInt(1 + Math.floor(tx.random() * 5_000_000_000));
      const mint = mints[tx.pick(mints.length)] ?? "";
      specs.push({ kind: "token", mint, to: to(TOKEN_STRANGERS), amount });
    } else {
      specs.push({ kind: "sol", to: to(STRANGERS), lamports });
      specs.push({ kind: "memo", text: `invoice ${tx.block}-${tx.index}` });
    }
    const from = senders[tx.index % SENDERS];
    if (!from) throw new Error("no sender");
    node.send(specs, { from, version: tx.index % 2 === 0 ? "legacy" : 0 });
  },
  async warm(node, slot) {
    const config = {
      encoding: "jsonParsed",
      transactionDetails: "full",
      maxSupportedTransactionVersion: 0,
      rewards: false,
      commitment: "confirmed",
    };
    await fetch(node.url, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: slot, method: "getBlock", params: [slot, config] }),
    }).then((r) => r.arrayBuffer());
  },
});
