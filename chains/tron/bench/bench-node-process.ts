/**
 * Child process of the scan benchmark: runs the Tron test node (so serving does not compete with
 * the adapter for one event loop, as with a real node) and fills it with benchmark blocks, then
 * reports the height range and how many transfers hit the watch set.
 */

import { serveBenchNode } from "@mp/test-nodes/bench";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { benchAddress } from "./deterministic-addresses.ts";

const SENDERS = 16;
const STRANGERS = 50_000;

serveBenchNode(() => startTronTestNode({ seed: "tron-scan-bench" }), {
  seed: 0x7e0,
  fund(node) {
    const senders = Array.from({ length: SENDERS }, (_, i) => TronKey.fromLabel(`tron-bench-sender:${i}`));
    for (const sender of senders) {
      node.transfer(sender.address, 10n ** 13n);
      node.transferToken(sender.address, 10n ** 13n);
    }
    return senders;
  },
  queue(node, senders, tx) {
    const to = tx.hit ? benchAddress("watch", tx.watchedIndex()) : benchAddress("stranger", tx.pick(STRANGERS));
    const from = senders[tx.index % SENDERS] as TronKey;
    if (tx.random() < 0.5) node.transfer(to, BigInt(1 + tx.pick(1_000_000_000)), { from });
    else node.transferToken(to, BigInt(1 + tx.pick(5_000_000_000)), { from });
  },
  async warm(node, num) {
    for (const path of ["/wallet/getblockbynum", "/wallet/gettransactioninfobyblocknum"]) {
      await fetch(`${node.url}${path}`, { method: "POST", body: JSON.stringify({ num }) }).then((r) => r.arrayBuffer());
    }
  },
});
