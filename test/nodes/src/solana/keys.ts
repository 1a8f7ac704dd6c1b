import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./programs.ts";

/** PKCS#8 DER prefix of a raw 32-byte Ed25519 seed (RFC 8410), for node:crypto. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * An Ed25519 key that signs with node:crypto (a hundred times faster than the pure-JS signer in
 * web3.js, which matters when a benchmark block holds thousands of transactions). The same seed
 * gives the same address as `Keypair.fromSeed(seed)` in web3.js.
 */
export class Signer {
  readonly address: string;
  readonly publicKey: Uint8Array;
  private readonly key: KeyObject;

  constructor(readonly seed: Uint8Array) {
    if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
    this.key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
    const spki = createPublicKey(this.key).export({ format: "der", type: "spki" });
    this.publicKey = new Uint8Array(spki.subarray(spki.length - 32));
    this.address = bs58.encode(this.publicKey);
  }

  /** A deterministic key: the seed is sha256 of the label. */
  static fromLabel(label: string): Signer {
    return new Signer(new Uint8Array(createHash("sha256").update(label).digest()));
  }

  /** From a web3.js Keypair's 64-byte secret key (seed followed by public key). */
  static fromSecretKey(secretKey: Uint8Array): Signer {
    return new Signer(secretKey.slice(0, 32));
  }

  sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, message, this.key));
  }
}

/** 32 bytes from a label, for deterministic block hashes and program ids. */
export function hashToAddress(...parts: Array<string | Uint8Array>): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return bs58.encode(hash.digest());
}

const ataCache = new Map<string, string>();

/**
 * The associated token account of `owner` for `mint`: the program-derived address of
 * [owner, token program, mint] under the associated token account program, as wallets derive it.
 */
export function associatedTokenAddress(owner: string, mint: string): string {
  const key = `${owner}:${mint}`;
  let address = ataCache.get(key);
  if (address === undefined) {
    const [pda] = PublicKey.findProgramAddressSync(
      [new PublicKey(owner).toBuffer(), new PublicKey(TOKEN_PROGRAM_ID).toBuffer(), new PublicKey(mint).toBuffer()],
      new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
    );
    address = pda.toBase58();
    ataCache.set(key, address);
  }
  return address;
}

export function isAddress(value: string): boolean {
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}
