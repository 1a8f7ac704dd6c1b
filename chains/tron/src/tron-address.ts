import bs58check from "bs58check";
import { TRON_ADDRESS_PREFIX } from "./constants.ts";

const HEX_ADDRESS = /^41[0-9a-fA-F]{40}$/;
const EVM_HEX_ADDRESS = /^[0-9a-fA-F]{40}$/;
const TOPIC_ADDRESS = /^0{24}([0-9a-fA-F]{40})$/;

/**
 * Tron addresses: 21 bytes (0x41 followed by the 20-byte account id), shown to users as base58check
 * (`T…`, 34 characters) and written by the HTTP API (without `visible`) as 42 hex digits `41…`.
 * Event logs and ABI words carry only the 20-byte id, without the 0x41.
 */
export function hexToBase58(hex: string): string {
  if (!HEX_ADDRESS.test(hex)) throw new RangeError(`not a 21-byte Tron hex address: ${hex}`);
  return bs58check.encode(Buffer.from(hex, "hex"));
}

/** The 20-byte id of a log address or ABI word, as the base58 address a wallet shows. */
export function evmHexToBase58(hex20: string): string {
  if (!EVM_HEX_ADDRESS.test(hex20)) throw new RangeError(`not a 20-byte address: ${hex20}`);
  return hexToBase58(`41${hex20}`);
}

/** A 32-byte indexed-address topic (12 zero bytes, then the 20-byte id) as base58; undefined if not an address. */
export function topicToBase58(topic: string): string | undefined {
  const match = TOPIC_ADDRESS.exec(topic);
  return match?.[1] === undefined ? undefined : evmHexToBase58(match[1]);
}

/** `T…` to `41…` (lowercase hex); throws a RangeError for anything that is not a Tron address. */
export function base58ToHex(address: string): string {
  let bytes: Uint8Array;
  try {
    bytes = bs58check.decode(address);
  } catch (error) {
    throw new RangeError(`not a base58check address: ${address}`, { cause: error });
  }
  if (bytes.length !== 21 || bytes[0] !== TRON_ADDRESS_PREFIX) {
    throw new RangeError(`not a Tron address (21 bytes starting 0x41): ${address}`);
  }
  return Buffer.from(bytes).toString("hex");
}

export function isTronAddress(address: string): boolean {
  try {
    base58ToHex(address);
    return true;
  } catch {
    return false;
  }
}
