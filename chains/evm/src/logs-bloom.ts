import { type Hex, hexToBytes, keccak256 } from "viem";

/**
 * The 2048-bit `logsBloom` of a block header (Yellow Paper §4.3.1, geth `types.Bloom`): every log's
 * emitting address and each of its topics sets 3 bits, taken from the first three byte pairs of
 * keccak256(value), 11 bits each; bit `b` lives in byte `255 - b / 8` (big-endian). A bloom never
 * misses a value that was added (no false negatives) but may claim one that was not (false
 * positives: a busy block sets most of its 2048 bits).
 */
const BLOOM_BYTES = 256;

/** The 3 (byte index, mask) pairs `value` (an address or topic, 0x-hex) sets in a bloom. */
export type BloomBits = readonly (readonly [byteIndex: number, mask: number])[];

export function bloomBits(value: Hex): BloomBits {
  const hash = hexToBytes(keccak256(value));
  return [0, 2, 4].map((i) => {
    const bit = (((hash[i] ?? 0) << 8) | (hash[i + 1] ?? 0)) & 2047;
    return [BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7)] as const;
  });
}

/** Whether `bloom` may hold the value whose bits these are (false: it certainly does not). */
export function bloomMayContain(bloom: Uint8Array, bits: BloomBits): boolean {
  return bits.every(([byteIndex, mask]) => ((bloom[byteIndex] ?? 0) & mask) !== 0);
}

/**
 * Whether a block may hold a log emitted by one of `contracts` with topic0 `topic`: the topic and
 * at least one contract must both be in its bloom. Precomputed once per adapter.
 */
export function logFilterBloom(
  contracts: readonly string[],
  topic: string,
): (logsBloom: string | undefined) => boolean {
  const topicBits = bloomBits(topic as Hex);
  const contractBits = contracts.map((contract) => bloomBits(contract as Hex));
  return (logsBloom) => {
    // A (non-standard) node that sends no bloom gives nothing to check: eth_getLogs is taken as it
    // is, as before this check, rather than fetching every block's receipts.
    if (contractBits.length === 0 || logsBloom === undefined) return false;
    const bloom = hexToBytes(logsBloom as Hex);
    return bloomMayContain(bloom, topicBits) && contractBits.some((bits) => bloomMayContain(bloom, bits));
  };
}
