import { createHash } from "node:crypto";
import bs58 from "bs58";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest();

/**
 * Benchmark addresses: address i of a named set is the base58check Tron address whose 20-byte id is
 * sha256(`${set}:${i}`) truncated, so the node process can pick watched recipients by index
 * without building the whole million. (node:crypto for the checksum: a million addresses in ~3 s.)
 */
export function benchAddress(set: "watch" | "stranger", index: number): string {
  const payload = Buffer.concat([Buffer.from([0x41]), sha256(Buffer.from(`${set}:${index}`)).subarray(0, 20)]);
  return bs58.encode(Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]));
}
