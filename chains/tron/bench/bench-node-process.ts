/**
 * Child process of the scan benchmark: runs the Tron test node (so serving does not compete with
 * the adapter for one event loop, as with a real node) and fills it with benchmark blocks, then
 * reports the height range and how many transfers hit the watch set.
 */

import { serveBenchNode, xorshift } from "@mp/test-nodes/bench";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { benchAddress } from "./deterministic-addresses.ts";

const SENDERS = 16;
const STRANGERS = 50_000;

serveBenchNode(
  () => startTronTestNode({ seed: "tron-scan-bench" }),
  async (node, request) => {
    const random = xorshift(0x7e0);
    const senders = Array.from({ length: SENDERS }, (_, i) => TronKey.fromLabel(`tron-bench-sender:${i}`));
    for (const sender of senders) {
      node.transfer(sender.address, 10n ** 13n);
      node.transferToken(sender.address, 10n ** 13n);
    }
    node.mine();

    const index = (size: number) => Math.floor(random() * size);
    let expectedTransfers = 0;
    const firstHeight = node.head() + 1;
    for (let b = 0; b < request.blocks; b++) {
      for (let t = 0; t < request.transactionsPerBlock; t++) {
        const hit = random() < request.hitRate;
        const to = hit
          ? benchAddress("watch", index(request.watchedAddresses))
          : benchAddress("stranger", index(STRANGERS));
        const from = senders[t % SENDERS] as TronKey;
        if (random() < 0.5) node.transfer(to, BigInt(1 + index(1_000_000_000)), { from });
        else node.transferToken(to, BigInt(1 + index(5_000_000_000)), { from });
        if (hit) expectedTransfers++;
      }
      node.mine();
    }
    // A real node serves stored blocks: render each answer once now so the timed scan measures the adapter.
    const lastHeight = node.head();
    for (let num = firstHeight; num <= lastHeight; num++) {
      for (const path of ["/wallet/getblockbynum", "/wallet/gettransactioninfobyblocknum"]) {
        await fetch(`${node.url}${path}`, { method: "POST", body: JSON.stringify({ num }) }).then((r) =>
          r.arrayBuffer(),
        );
      }
    }
    return { from: firstHeight, to: lastHeight, expectedTransfers };
  },
);
