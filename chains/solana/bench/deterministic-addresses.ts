import { createHash } from "node:crypto";
import bs58 from "bs58";

/**
 * Benchmark addresses: address i of a named set is base58(sha256(`${set}:${i}`)), so the node
 * process can pick watched recipients by index without building the whole million.
 */
export function benchAddress(set: "watch" | "stranger", index: number): string {
  return bs58.encode(createHash("sha256").update(`${set}:${index}`).digest());
}
