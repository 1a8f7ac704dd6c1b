import { createHash } from "node:crypto";
import bs58 from "bs58";

/**
 * Benchmark addresses: address i of a named set is base58(sha256(`${set}:${i}`)), so the node
 * process can pick watched recipients by index without building the whole million.
 */
export function benchAddress(set: "watch" | "stranger", index: number): string {
  return bs58.encode(createHash("sha256").update(`${set}:${index}`).digest());
}

export function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}
