import { createHash } from "node:crypto";
import { utils } from "tronweb";

/**
 * A secp256k1 account key as Tron uses it: the address is 0x41 followed by the last 20 bytes of
 * keccak256(uncompressed public key), shown as base58check. Derivation and signing are tronweb's
 * (the library wallets use), independent of the adapter's own address code.
 */
export class TronKey {
  readonly privateKeyHex: string;
  /** `41…`, 42 lowercase hex digits: the form the HTTP API writes. */
  readonly addressHex: string;
  /** `T…`: the form a wallet shows. */
  readonly address: string;
  private readonly privateKey: Buffer;

  constructor(privateKeyHex: string) {
    if (!/^[0-9a-fA-F]{64}$/.test(privateKeyHex)) throw new RangeError("a secp256k1 private key is 32 bytes of hex");
    this.privateKeyHex = privateKeyHex.toLowerCase();
    this.privateKey = Buffer.from(this.privateKeyHex, "hex");
    const addressBytes = utils.crypto.getAddressFromPriKey(this.privateKey);
    this.addressHex = Buffer.from(addressBytes).toString("hex");
    this.address = utils.crypto.getBase58CheckAddress(addressBytes);
  }

  /** A deterministic key: sha256 of the label. */
  static fromLabel(label: string): TronKey {
    return new TronKey(createHash("sha256").update(label).digest("hex"));
  }

  /** 65-byte signature r ‖ s ‖ recovery id (0/1), hex, as Tron transactions carry it. */
  sign(hash32Hex: string): string {
    const signature = utils.crypto.ECKeySign(Buffer.from(hash32Hex, "hex"), this.privateKey).toLowerCase();
    const v = Number.parseInt(signature.slice(128, 130), 16);
    return `${signature.slice(0, 128)}${(v >= 27 ? v - 27 : v).toString(16).padStart(2, "0")}`;
  }
}

/** `T…` → `41…` (lowercase hex), or undefined if the string is not a valid Tron address. */
export function addressToHex(address: string): string | undefined {
  const bytes = utils.crypto.decode58Check(address);
  if (bytes === false || bytes.length !== 21 || bytes[0] !== 0x41) return undefined;
  return Buffer.from(bytes).toString("hex");
}

/** `41…` → `T…`. */
export function hexToAddress(hex: string): string {
  return utils.crypto.getBase58CheckAddress([...Buffer.from(hex, "hex")]);
}

/** A 21-byte contract address derived from a label (the test node's token contract has no deployer history). */
export function labelToContractHex(label: string): string {
  return `41${createHash("sha256").update(label).digest("hex").slice(0, 40)}`;
}
