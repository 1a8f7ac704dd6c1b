import bs58 from "bs58";

/**
 * Solana transaction wire format (legacy and v0 messages), written out directly so the node can
 * sign thousands of transactions per block quickly. Tests check the bytes against web3.js's
 * deserializer and the signatures against the message.
 */
export interface AccountMeta {
  pubkey: string;
  isSigner: boolean;
  isWritable: boolean;
}

export interface Instruction {
  programId: string;
  keys: AccountMeta[];
  data: Uint8Array;
}

export type TransactionVersion = "legacy" | 0;

/** An account of the compiled message, as jsonParsed `accountKeys` shows it. */
export interface MessageAccount {
  pubkey: string;
  signer: boolean;
  writable: boolean;
}

export interface CompiledMessage {
  bytes: Uint8Array;
  accounts: MessageAccount[];
  numRequiredSignatures: number;
}

/**
 * Orders the accounts as the runtime requires (fee payer first; signers before non-signers,
 * writable before read-only within each), keeping first-use order inside each group as web3.js's
 * v0 compiler does, then serialises header, keys, blockhash and instructions.
 */
export function compileMessage(
  payer: string,
  instructions: readonly Instruction[],
  recentBlockhash: string,
  version: TransactionVersion,
): CompiledMessage {
  const flags = new Map<string, { signer: boolean; writable: boolean }>();
  const use = (pubkey: string, signer: boolean, writable: boolean) => {
    const current = flags.get(pubkey);
    if (current) {
      current.signer ||= signer;
      current.writable ||= writable;
    } else {
      flags.set(pubkey, { signer, writable });
    }
  };
  use(payer, true, true);
  for (const ix of instructions) {
    for (const key of ix.keys) use(key.pubkey, key.isSigner, key.isWritable);
    use(ix.programId, false, false);
  }
  const all = [...flags.entries()].map(([pubkey, f]) => ({ pubkey, signer: f.signer, writable: f.writable }));
  const accounts = [
    ...all.filter((a) => a.signer && a.writable),
    ...all.filter((a) => a.signer && !a.writable),
    ...all.filter((a) => !a.signer && a.writable),
    ...all.filter((a) => !a.signer && !a.writable),
  ];
  const index = new Map(accounts.map((a, i) => [a.pubkey, i]));
  const numRequiredSignatures = accounts.filter((a) => a.signer).length;
  const numReadonlySigned = accounts.filter((a) => a.signer && !a.writable).length;
  const numReadonlyUnsigned = accounts.filter((a) => !a.signer && !a.writable).length;

  const out = new ByteWriter();
  if (version === 0) out.byte(0x80);
  out.byte(numRequiredSignatures).byte(numReadonlySigned).byte(numReadonlyUnsigned);
  out.compactU16(accounts.length);
  for (const account of accounts) out.bytes(decode32(account.pubkey));
  out.bytes(decode32(recentBlockhash));
  out.compactU16(instructions.length);
  for (const ix of instructions) {
    out.byte(index.get(ix.programId) ?? 0);
    out.compactU16(ix.keys.length);
    for (const key of ix.keys) out.byte(index.get(key.pubkey) ?? 0);
    out.compactU16(ix.data.length).bytes(ix.data);
  }
  if (version === 0) out.compactU16(0); // no address table lookups
  return { bytes: out.finish(), accounts, numRequiredSignatures };
}

/** signatures (compact array of 64-byte signatures) followed by the message. */
export function serializeTransaction(signatures: readonly Uint8Array[], message: Uint8Array): Uint8Array {
  const out = new ByteWriter();
  out.compactU16(signatures.length);
  for (const signature of signatures) out.bytes(signature);
  return out.bytes(message).finish();
}

export function u64le(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return bytes;
}

export function u32le(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

function decode32(address: string): Uint8Array {
  const bytes = bs58.decode(address);
  if (bytes.length !== 32) throw new RangeError(`${address} is not a 32-byte key`);
  return bytes;
}

class ByteWriter {
  private readonly parts: number[] = [];
  private readonly chunks: Uint8Array[] = [];

  byte(value: number): this {
    this.parts.push(value & 0xff);
    return this;
  }

  bytes(value: Uint8Array): this {
    this.flush();
    this.chunks.push(value);
    return this;
  }

  /** Solana's "shortvec": 7 bits per byte, high bit set while more follow. */
  compactU16(value: number): this {
    let rest = value;
    for (;;) {
      const low = rest & 0x7f;
      rest >>= 7;
      if (rest === 0) return this.byte(low);
      this.byte(low | 0x80);
    }
  }

  finish(): Uint8Array {
    this.flush();
    return Buffer.concat(this.chunks);
  }

  private flush(): void {
    if (this.parts.length > 0) this.chunks.push(Uint8Array.from(this.parts.splice(0)));
  }
}
