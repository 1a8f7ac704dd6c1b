import bs58 from "bs58";
import { associatedTokenAddress, type Signer } from "./keys.ts";
import {
  type CompiledMessage,
  compileMessage,
  type Instruction,
  type MessageAccount,
  serializeTransaction,
  type TransactionVersion,
  u32le,
  u64le,
} from "./message-encoding.ts";
import { ASSOCIATED_TOKEN_PROGRAM_ID, MEMO_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./programs.ts";

/** What a test asks the node to put in one transaction. */
export type TransferSpec =
  /** A top-level system `transfer`. */
  | { kind: "sol"; to: string; lamports: bigint }
  /** SOL moved by a program through CPI: the system transfer appears in `innerInstructions`. */
  | { kind: "solViaProgram"; to: string; lamports: bigint }
  /** transferChecked into the owner's associated token account (created in the same transaction when missing). */
  | { kind: "token"; mint: string; to: string; amount: bigint }
  | { kind: "memo"; text: string };

/** One top-level instruction as the simulated runtime executes it. */
export type Step =
  | { kind: "systemTransfer"; from: string; to: string; lamports: bigint }
  | { kind: "routerForward"; from: string; to: string; lamports: bigint }
  | { kind: "routerFail"; from: string }
  /** Associated token account Create (fails when the account exists) or CreateIdempotent. */
  | { kind: "createAta"; payer: string; owner: string; mint: string; ata: string; idempotent: boolean }
  /** SPL Token `transfer` (no mint or decimals check), as older wallets still send it. */
  | { kind: "tokenTransfer"; source: string; destination: string; authority: string; amount: bigint }
  | {
      kind: "transferChecked";
      source: string;
      mint: string;
      destination: string;
      authority: string;
      amount: bigint;
      decimals: number;
    }
  /** SPL Token `CloseAccount`: an empty token account's lamports go to `destination`, the account is deleted. */
  | { kind: "closeAccount"; account: string; destination: string; owner: string }
  | { kind: "memo"; text: string }
  /** An instruction of a program the node runs, malformed (too few accounts, bad data): it fails on chain. */
  | { kind: "invalidInstruction"; program: string; error: string };

export interface SignedTransaction {
  signature: string;
  version: TransactionVersion;
  payer: string;
  accounts: MessageAccount[];
  recentBlockhash: string;
  steps: Step[];
  /** jsonParsed rendering of each top-level instruction (independent of execution). */
  instructionsJson: unknown[];
  /** The signed transaction in wire format. */
  wire: Uint8Array;
}

export interface BuildContext {
  routerProgramId: string;
  recentBlockhash: string;
  decimalsOf(mint: string): number;
  /** Whether the token account exists now or will be created by an earlier pending transaction. */
  tokenAccountKnown(address: string): boolean;
}

export interface BuildOptions {
  version?: TransactionVersion;
  /** Appends an instruction that fails, so the whole transaction fails on chain. */
  fail?: boolean;
}

/** Turns transfer specs into a real signed transaction (payer = signer = sender of every transfer). */
export function buildTransaction(
  signer: Signer,
  specs: readonly TransferSpec[],
  context: BuildContext,
  options: BuildOptions = {},
): SignedTransaction {
  const from = signer.address;
  const steps: Step[] = [];
  for (const spec of specs) {
    switch (spec.kind) {
      case "sol":
        steps.push({ kind: "systemTransfer", from, to: spec.to, lamports: spec.lamports });
        break;
      case "solViaProgram":
        steps.push({ kind: "routerForward", from, to: spec.to, lamports: spec.lamports });
        break;
      case "token": {
        const destination = associatedTokenAddress(spec.to, spec.mint);
        if (!context.tokenAccountKnown(destination)) {
          steps.push({
            kind: "createAta",
            payer: from,
            owner: spec.to,
            mint: spec.mint,
            ata: destination,
            idempotent: true,
          });
        }
        steps.push({
          kind: "transferChecked",
          source: associatedTokenAddress(from, spec.mint),
          mint: spec.mint,
          destination,
          authority: from,
          amount: spec.amount,
          decimals: context.decimalsOf(spec.mint),
        });
        break;
      }
      case "memo":
        steps.push({ kind: "memo", text: spec.text });
        break;
    }
  }
  if (options.fail) steps.push({ kind: "routerFail", from });

  const instructions = steps.map((step) => toInstruction(step, context.routerProgramId));
  const version = options.version ?? "legacy";
  const message: CompiledMessage = compileMessage(from, instructions, context.recentBlockhash, version);
  const signature = signer.sign(message.bytes);
  return {
    signature: bs58.encode(signature),
    version,
    payer: from,
    accounts: message.accounts,
    recentBlockhash: context.recentBlockhash,
    steps,
    instructionsJson: steps.map((step, i) => instructionJson(step, instructions[i], context.routerProgramId)),
    wire: serializeTransaction([signature], message.bytes),
  };
}

const ro = (pubkey: string): { pubkey: string; isSigner: boolean; isWritable: boolean } => ({
  pubkey,
  isSigner: false,
  isWritable: false,
});
const rw = (pubkey: string) => ({ pubkey, isSigner: false, isWritable: true });
const signerRw = (pubkey: string) => ({ pubkey, isSigner: true, isWritable: true });

/** The instruction as the real programs encode it (system: u32 index 2 + u64; token: 12 + u64 + u8; ATA: 1). */
function toInstruction(step: Step, router: string): Instruction {
  switch (step.kind) {
    case "systemTransfer":
      return {
        programId: SYSTEM_PROGRAM_ID,
        keys: [signerRw(step.from), rw(step.to)],
        data: Buffer.concat([u32le(2), u64le(step.lamports)]),
      };
    case "routerForward":
      return {
        programId: router,
        keys: [signerRw(step.from), rw(step.to), ro(SYSTEM_PROGRAM_ID)],
        data: Buffer.concat([Uint8Array.of(0), u64le(step.lamports)]),
      };
    case "routerFail":
      return { programId: router, keys: [signerRw(step.from)], data: Uint8Array.of(1) };
    case "createAta":
      return {
        programId: ASSOCIATED_TOKEN_PROGRAM_ID,
        keys: [
          signerRw(step.payer),
          rw(step.ata),
          ro(step.owner),
          ro(step.mint),
          ro(SYSTEM_PROGRAM_ID),
          ro(TOKEN_PROGRAM_ID),
        ],
        data: step.idempotent ? Uint8Array.of(1) : new Uint8Array(),
      };
    case "tokenTransfer":
      return {
        programId: TOKEN_PROGRAM_ID,
        keys: [rw(step.source), rw(step.destination), { pubkey: step.authority, isSigner: true, isWritable: false }],
        data: Buffer.concat([Uint8Array.of(3), u64le(step.amount)]),
      };
    case "invalidInstruction":
      return { programId: step.program, keys: [], data: new Uint8Array() };
    case "transferChecked":
      return {
        programId: TOKEN_PROGRAM_ID,
        keys: [
          rw(step.source),
          ro(step.mint),
          rw(step.destination),
          { pubkey: step.authority, isSigner: true, isWritable: false },
        ],
        data: Buffer.concat([Uint8Array.of(12), u64le(step.amount), Uint8Array.of(step.decimals)]),
      };
    case "closeAccount":
      return {
        programId: TOKEN_PROGRAM_ID,
        keys: [rw(step.account), rw(step.destination), { pubkey: step.owner, isSigner: true, isWritable: false }],
        data: Uint8Array.of(9),
      };
    case "memo":
      return { programId: MEMO_PROGRAM_ID, keys: [], data: new TextEncoder().encode(step.text) };
  }
}

/** jsonParsed form of a top-level instruction: parsed for known programs, raw for the router (and malformed ones). */
export function instructionJson(step: Step, ix: Instruction | undefined, router: string): unknown {
  switch (step.kind) {
    case "systemTransfer":
      return systemTransferJson(step.from, step.to, step.lamports, null);
    case "routerForward":
    case "routerFail":
    case "invalidInstruction":
      return {
        accounts: ix?.keys.map((key) => key.pubkey) ?? [],
        data: bs58.encode(ix?.data ?? new Uint8Array()),
        programId: ix?.programId ?? router,
        stackHeight: null,
      };
    case "createAta":
      return {
        parsed: {
          info: {
            account: step.ata,
            mint: step.mint,
            source: step.payer,
            systemProgram: SYSTEM_PROGRAM_ID,
            tokenProgram: TOKEN_PROGRAM_ID,
            wallet: step.owner,
          },
          type: step.idempotent ? "createIdempotent" : "create",
        },
        program: "spl-associated-token-account",
        programId: ASSOCIATED_TOKEN_PROGRAM_ID,
        stackHeight: null,
      };
    case "tokenTransfer":
      return {
        parsed: {
          info: {
            amount: step.amount.toString(),
            authority: step.authority,
            destination: step.destination,
            source: step.source,
          },
          type: "transfer",
        },
        program: "spl-token",
        programId: TOKEN_PROGRAM_ID,
        stackHeight: null,
      };
    case "transferChecked":
      return {
        parsed: {
          info: {
            authority: step.authority,
            destination: step.destination,
            mint: step.mint,
            source: step.source,
            tokenAmount: tokenAmountJson(step.amount, step.decimals),
          },
          type: "transferChecked",
        },
        program: "spl-token",
        programId: TOKEN_PROGRAM_ID,
        stackHeight: null,
      };
    case "closeAccount":
      return {
        parsed: {
          info: { account: step.account, destination: step.destination, owner: step.owner },
          type: "closeAccount",
        },
        program: "spl-token",
        programId: TOKEN_PROGRAM_ID,
        stackHeight: null,
      };
    case "memo":
      return { parsed: step.text, program: "spl-memo", programId: MEMO_PROGRAM_ID, stackHeight: null };
  }
}

export function systemTransferJson(from: string, to: string, lamports: bigint, stackHeight: number | null): unknown {
  return {
    parsed: { info: { destination: to, lamports, source: from }, type: "transfer" },
    program: "system",
    programId: SYSTEM_PROGRAM_ID,
    stackHeight,
  };
}

export function tokenAmountJson(amount: bigint, decimals: number): unknown {
  const text = uiAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: amount === 0n ? null : Number(text), uiAmountString: text };
}

function uiAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, "0");
  const fraction = digits.slice(-decimals).replace(/0+$/, "");
  return fraction ? `${digits.slice(0, -decimals)}.${fraction}` : digits.slice(0, -decimals);
}
