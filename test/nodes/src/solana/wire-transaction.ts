import { createPublicKey, verify } from "node:crypto";
import { VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { MessageAccount } from "./message-encoding.ts";
import { ASSOCIATED_TOKEN_PROGRAM_ID, MEMO_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./programs.ts";
import { instructionJson, type SignedTransaction, type Step } from "./transaction-builder.ts";

/** SPKI DER prefix of a raw 32-byte Ed25519 public key (RFC 8410), for node:crypto. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** Why a wire transaction was refused before any execution: agave's RPC error for it. */
export class WireTransactionError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface DecodedTransaction {
  tx: SignedTransaction;
  /** Every required signature is present and verifies over the message (what sigverify checks). */
  signaturesValid: boolean;
}

/**
 * Decodes a transaction as a client sends it (wire bytes: signatures, then a legacy or v0 message)
 * into what the simulated runtime executes. Throws WireTransactionError where agave's RPC refuses
 * to even sanitize it; signature validity is reported, not thrown, because the RPC only checks it
 * at preflight (with skipPreflight a badly signed transaction is dropped later by sigverify).
 */
export function decodeWireTransaction(wire: Uint8Array, context: { routerProgramId: string }): DecodedTransaction {
  let decoded: VersionedTransaction;
  try {
    decoded = VersionedTransaction.deserialize(wire);
  } catch (error) {
    throw new WireTransactionError(
      -32602,
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const message = decoded.message;
  const keys = message.staticAccountKeys.map((key) => key.toBase58());
  const required = message.header.numRequiredSignatures;
  if (required < 1 || decoded.signatures.length !== required || keys.length < required) {
    throw new WireTransactionError(
      -32602,
      "invalid transaction: Transaction failed to sanitize accounts offsets correctly",
    );
  }
  if (message.addressTableLookups.length > 0) {
    throw new WireTransactionError(-32602, "the Solana test node has no address lookup tables");
  }
  const accounts: MessageAccount[] = keys.map((pubkey, i) => ({
    pubkey,
    signer: i < required,
    writable: message.isAccountWritable(i),
  }));

  // The signed bytes are exactly the wire's message part, after the compact-u16 count and signatures.
  const messageBytes = wire.subarray(compactU16Length(required) + 64 * required);
  const signaturesValid = decoded.signatures.every((signature, i) =>
    ed25519Verify(bs58.decode(keys[i] ?? ""), messageBytes, signature),
  );

  const steps: Step[] = [];
  const instructionsJson: unknown[] = [];
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex];
    const ixKeys = ix.accountKeyIndexes.map((index) => keys[index]);
    if (program === undefined || ixKeys.some((key) => key === undefined)) {
      throw new WireTransactionError(
        -32602,
        "invalid transaction: Transaction failed to sanitize accounts offsets correctly",
      );
    }
    const step = decodeInstruction(program, ixKeys as string[], Buffer.from(ix.data), context);
    steps.push(step);
    instructionsJson.push(
      instructionJson(
        step,
        {
          programId: program,
          keys: (ixKeys as string[]).map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })),
          data: ix.data,
        },
        context.routerProgramId,
      ),
    );
  }

  const firstSignature = decoded.signatures[0] ?? new Uint8Array(64);
  return {
    signaturesValid,
    tx: {
      signature: bs58.encode(firstSignature),
      version: decoded.version === "legacy" ? "legacy" : 0,
      payer: keys[0] ?? "",
      accounts,
      recentBlockhash: message.recentBlockhash,
      steps,
      instructionsJson,
      wire: Uint8Array.from(wire),
    },
  };
}

/**
 * The instructions of the programs the node runs, decoded as those programs read them. An
 * instruction of a known program with too few accounts or bad data becomes a step that fails on
 * chain, as it would on a validator; a program the node does not run is refused outright.
 */
function decodeInstruction(program: string, keys: string[], data: Buffer, context: { routerProgramId: string }): Step {
  const invalid = (error: string): Step => ({ kind: "invalidInstruction", program, error });
  const need = (count: number) => keys.length >= count;
  const key = (i: number) => keys[i] ?? "";
  switch (program) {
    case SYSTEM_PROGRAM_ID: {
      if (data.length < 4) return invalid("InvalidInstructionData");
      const index = data.readUInt32LE(0);
      if (index !== 2) throw unsupported(`system instruction ${index}`);
      if (data.length !== 12) return invalid("InvalidInstructionData");
      if (!need(2)) return invalid("NotEnoughAccountKeys");
      return { kind: "systemTransfer", from: key(0), to: key(1), lamports: data.readBigUInt64LE(4) };
    }
    case TOKEN_PROGRAM_ID: {
      // Transfer (3): [source, destination, authority], u64 amount. TransferChecked (12): the mint
      // after the source, then the decimals after the amount.
      const index = data[0];
      if (index === 9) {
        // CloseAccount (9): [account, destination, owner], no data after the index.
        if (data.length !== 1) return invalid("InvalidInstructionData");
        if (!need(3)) return invalid("NotEnoughAccountKeys");
        return { kind: "closeAccount", account: key(0), destination: key(1), owner: key(2) };
      }
      if (index !== 3 && index !== 12) throw unsupported(`SPL Token instruction ${index ?? "(empty)"}`);
      const checked = index === 12;
      const accounts = checked ? 4 : 3;
      if (data.length !== (checked ? 10 : 9)) return invalid("InvalidInstructionData");
      if (!need(accounts)) return invalid("NotEnoughAccountKeys");
      const transfer = {
        source: key(0),
        destination: key(accounts - 2),
        authority: key(accounts - 1),
        amount: data.readBigUInt64LE(1),
      };
      return checked
        ? { kind: "transferChecked", ...transfer, mint: key(1), decimals: data[9] ?? 0 }
        : { kind: "tokenTransfer", ...transfer };
    }
    case ASSOCIATED_TOKEN_PROGRAM_ID: {
      // Create is the empty instruction (or 0), CreateIdempotent is 1.
      const index = data.length === 0 ? 0 : data[0];
      if (index !== 0 && index !== 1) throw unsupported(`associated token account instruction ${index}`);
      if (!need(6)) return invalid("NotEnoughAccountKeys");
      if (key(4) !== SYSTEM_PROGRAM_ID || key(5) !== TOKEN_PROGRAM_ID) return invalid("IncorrectProgramId");
      return { kind: "createAta", payer: key(0), ata: key(1), owner: key(2), mint: key(3), idempotent: index === 1 };
    }
    case MEMO_PROGRAM_ID:
      return { kind: "memo", text: data.toString("utf8") };
    case context.routerProgramId:
      if (data[0] === 0 && data.length === 9 && need(2)) {
        return { kind: "routerForward", from: key(0), to: key(1), lamports: data.readBigUInt64LE(1) };
      }
      if (data[0] === 1 && need(1)) return { kind: "routerFail", from: key(0) };
      return invalid("InvalidInstructionData");
    default:
      throw unsupported(`program ${program}`);
  }
}

const unsupported = (what: string) => new WireTransactionError(-32602, `the Solana test node does not run ${what}`);

function compactU16Length(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : 3;
}

function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
