import { stringifyU64 } from "./json-u64.ts";
import { associatedTokenAddress } from "./keys.ts";
import type { LedgerState } from "./ledger-state.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  COMPUTE_UNIT_LIMIT,
  LAMPORTS_PER_SIGNATURE,
  MEMO_PROGRAM_ID,
  RENT_EXEMPT_TOKEN_ACCOUNT,
  RENT_EXEMPT_WALLET,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_SPACE,
  TOKEN_PROGRAM_ID,
} from "./programs.ts";
import { type SignedTransaction, type Step, systemTransferJson, tokenAmountJson } from "./transaction-builder.ts";

/** A transaction as included in a block: its jsonParsed rendering, ready to splice into getBlock. */
export interface IncludedTransaction {
  source: SignedTransaction;
  signature: string;
  failed: boolean;
  /** The transaction error (`meta.err`), null when it succeeded. */
  error: unknown;
  logs: string[];
  units: number;
  fee: bigint;
  /** `{"meta":…,"transaction":…` (without the closing brace, so the version field can follow). */
  json: string;
}

type StepOutcome =
  | { ok: true; inner: unknown[]; logs: string[]; units: number }
  | { ok: false; error: unknown; inner: unknown[]; logs: string[]; units: number };

/**
 * Executes a signed transaction against the state as the Solana runtime would: the fee is charged
 * first and kept even when the transaction fails; a failing instruction reverts every other
 * change; a wallet left with lamports below the rent-exempt minimum fails the transaction
 * (InsufficientFundsForRent). Returns null when the payer cannot pay the fee (never included).
 */
export interface RuntimeContext {
  routerProgramId: string;
  decimalsOf(mint: string): number;
  /** Whether the address is one of the node's SPL mints. */
  isMint(address: string): boolean;
}

export function executeTransaction(
  state: LedgerState,
  tx: SignedTransaction,
  context: RuntimeContext,
): IncludedTransaction | null {
  const fee = LAMPORTS_PER_SIGNATURE * BigInt(tx.accounts.filter((a) => a.signer).length);
  if (state.lamports(tx.payer) < fee) return null;
  const keys = tx.accounts.map((a) => a.pubkey);
  const preBalances = keys.map((key) => state.lamports(key));
  const preTokenBalances = tokenBalances(state, keys, context);

  state.addLamports(tx.payer, -fee);
  const afterFee = state.mark();

  let error: unknown = null;
  let units = 0;
  const logs: string[] = [];
  const innerInstructions: Array<{ index: number; instructions: unknown[] }> = [];
  const signers = new Set(tx.accounts.filter((a) => a.signer).map((a) => a.pubkey));
  for (const [index, step] of tx.steps.entries()) {
    const outcome = runStep(state, step, signers, context);
    units += outcome.units;
    logs.push(...outcome.logs);
    if (outcome.inner.length > 0) innerInstructions.push({ index, instructions: outcome.inner });
    if (!outcome.ok) {
      error = { InstructionError: [index, outcome.error] };
      break;
    }
  }
  if (error === null) {
    // agave's rent-state rule for a wallet: it may not become rent-paying (above 0, below the
    // exempt minimum) from empty or from rent-exempt, whoever paid (a transfer in, a fee out).
    const poor = tx.accounts.findIndex((a, i) => {
      const balance = state.lamports(a.pubkey);
      const before = preBalances[i] ?? 0n;
      return (
        a.writable &&
        (before === 0n || before >= RENT_EXEMPT_WALLET) &&
        balance > 0n &&
        balance < RENT_EXEMPT_WALLET &&
        !state.tokenAccount(a.pubkey)
      );
    });
    if (poor >= 0) error = { InsufficientFundsForRent: { account_index: poor } };
  }
  if (error !== null) state.rollbackTo(afterFee);

  const meta = {
    computeUnitsConsumed: units,
    err: error,
    fee,
    innerInstructions,
    logMessages: logs,
    postBalances: keys.map((key) => state.lamports(key)),
    postTokenBalances: tokenBalances(state, keys, context),
    preBalances,
    preTokenBalances,
    rewards: [],
    status: error === null ? { Ok: null } : { Err: error },
  };
  const transaction = {
    message: {
      accountKeys: tx.accounts.map((a) => ({
        pubkey: a.pubkey,
        signer: a.signer,
        source: "transaction",
        writable: a.writable,
      })),
      addressTableLookups: tx.version === 0 ? [] : null,
      instructions: tx.instructionsJson,
      recentBlockhash: tx.recentBlockhash,
    },
    signatures: [tx.signature],
  };
  return {
    source: tx,
    signature: tx.signature,
    failed: error !== null,
    error,
    logs,
    units,
    fee,
    json: `{"meta":${stringifyU64(meta)},"transaction":${stringifyU64(transaction)}`,
  };
}

function tokenBalances(state: LedgerState, keys: readonly string[], context: RuntimeContext): unknown[] {
  const balances: unknown[] = [];
  keys.forEach((key, accountIndex) => {
    const account = state.tokenAccount(key);
    if (!account) return;
    balances.push({
      accountIndex,
      mint: account.mint,
      owner: account.owner,
      programId: TOKEN_PROGRAM_ID,
      uiTokenAmount: tokenAmountJson(account.amount, context.decimalsOf(account.mint)),
    });
  });
  return balances;
}

const invoke = (program: string, depth: number) => `Program ${program} invoke [${depth}]`;
const success = (program: string) => `Program ${program} success`;
const consumed = (program: string, units: number) =>
  `Program ${program} consumed ${units} of ${COMPUTE_UNIT_LIMIT} compute units`;

/** A failed step: the program's error, the compute units it burnt and the log lines it wrote. */
const failed = (error: unknown, units: number, logs: string[], inner: unknown[] = []): StepOutcome => ({
  ok: false,
  error,
  inner,
  units,
  logs,
});

/** The failure of an instruction whose account should have signed and did not. */
const missingSignature = (program: string): StepOutcome =>
  failed("MissingRequiredSignature", 150, [
    invoke(program, 1),
    `Program ${program} failed: missing required signature for instruction`,
  ]);

function runStep(state: LedgerState, step: Step, signers: ReadonlySet<string>, context: RuntimeContext): StepOutcome {
  const router = context.routerProgramId;
  switch (step.kind) {
    case "systemTransfer": {
      if (!signers.has(step.from)) return missingSignature(SYSTEM_PROGRAM_ID);
      if (state.tokenAccount(step.from) || context.isMint(step.from)) {
        return failed("InvalidArgument", 150, [
          invoke(SYSTEM_PROGRAM_ID, 1),
          "Transfer: `from` must not carry data",
          `Program ${SYSTEM_PROGRAM_ID} failed: invalid program argument`,
        ]);
      }
      const have = state.lamports(step.from);
      if (have < step.lamports) {
        return failed({ Custom: 1 }, 150, [
          invoke(SYSTEM_PROGRAM_ID, 1),
          `Transfer: insufficient lamports ${have}, need ${step.lamports}`,
          `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`,
        ]);
      }
      moveLamports(state, step.from, step.to, step.lamports);
      return { ok: true, inner: [], units: 150, logs: [invoke(SYSTEM_PROGRAM_ID, 1), success(SYSTEM_PROGRAM_ID)] };
    }
    case "routerForward": {
      if (!signers.has(step.from)) return missingSignature(router);
      const logs = [invoke(router, 1), "Program log: Instruction: Forward", invoke(SYSTEM_PROGRAM_ID, 2)];
      const inner = [systemTransferJson(step.from, step.to, step.lamports, 2)];
      if (state.lamports(step.from) < step.lamports) {
        logs.push(`Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`, consumed(router, 2_417));
        logs.push(`Program ${router} failed: custom program error: 0x1`);
        return failed({ Custom: 1 }, 2_417, logs, inner);
      }
      moveLamports(state, step.from, step.to, step.lamports);
      logs.push(success(SYSTEM_PROGRAM_ID), consumed(router, 2_417), success(router));
      return { ok: true, inner, units: 2_417, logs };
    }
    case "routerFail":
      return failed({ Custom: 6000 }, 1_089, [
        invoke(router, 1),
        "Program log: AnchorError occurred. Error Code: Forced. Error Number: 6000. Error Message: forced failure.",
        consumed(router, 1_089),
        `Program ${router} failed: custom program error: 0x1770`,
      ]);
    case "createAta":
      if (!signers.has(step.payer)) return missingSignature(ASSOCIATED_TOKEN_PROGRAM_ID);
      return createAta(state, step, context);
    case "tokenTransfer":
    case "transferChecked": {
      const checked = step.kind === "transferChecked";
      const source = state.tokenAccount(step.source);
      const destination = state.tokenAccount(step.destination);
      const logs = [
        invoke(TOKEN_PROGRAM_ID, 1),
        `Program log: Instruction: ${checked ? "TransferChecked" : "Transfer"}`,
      ];
      const tokenError = (error: unknown, message: string, units: number): StepOutcome => {
        logs.push(`Program log: Error: ${message}`, consumed(TOKEN_PROGRAM_ID, units));
        logs.push(`Program ${TOKEN_PROGRAM_ID} failed: ${programErrorText(error)}`);
        return failed(error, units, logs);
      };
      if (!source || !destination) {
        logs.push(
          consumed(TOKEN_PROGRAM_ID, 1_221),
          `Program ${TOKEN_PROGRAM_ID} failed: invalid account data for instruction`,
        );
        return failed("InvalidAccountData", 1_221, logs);
      }
      // spl-token's Processor::process_transfer, in its order of checks.
      if (source.mint !== destination.mint || (checked && source.mint !== step.mint)) {
        return tokenError({ Custom: 3 }, "Account not associated with this Mint", 2_904);
      }
      if (checked && step.decimals !== context.decimalsOf(step.mint)) {
        return tokenError({ Custom: 18 }, "The provided decimals value different from the Mint decimals", 2_904);
      }
      if (source.owner !== step.authority) return tokenError({ Custom: 4 }, "owner does not match", 2_904);
      if (!signers.has(step.authority)) {
        logs.push(`Program ${TOKEN_PROGRAM_ID} failed: missing required signature for instruction`);
        return failed("MissingRequiredSignature", 2_904, logs);
      }
      if (source.amount < step.amount) {
        logs.push("Program log: Error: insufficient funds", consumed(TOKEN_PROGRAM_ID, 4_381));
        logs.push(`Program ${TOKEN_PROGRAM_ID} failed: custom program error: 0x1`);
        return failed({ Custom: 1 }, 4_381, logs);
      }
      if (step.source !== step.destination) {
        state.setTokenAccount(step.source, { ...source, amount: source.amount - step.amount });
        state.setTokenAccount(step.destination, { ...destination, amount: destination.amount + step.amount });
      }
      logs.push(consumed(TOKEN_PROGRAM_ID, 6_200), success(TOKEN_PROGRAM_ID));
      return { ok: true, inner: [], units: 6_200, logs };
    }
    case "closeAccount":
      return closeAccount(state, step, signers);
    case "invalidInstruction":
      return failed(step.error, 150, [
        invoke(step.program, 1),
        `Program ${step.program} failed: ${programErrorText(step.error)}`,
      ]);
    case "memo":
      return {
        ok: true,
        inner: [],
        units: 3_000,
        logs: [
          invoke(MEMO_PROGRAM_ID, 1),
          `Program log: Memo (len ${new TextEncoder().encode(step.text).length}): ${JSON.stringify(step.text)}`,
          consumed(MEMO_PROGRAM_ID, 3_000),
          success(MEMO_PROGRAM_ID),
        ],
      };
  }
}

/** How agave's InstructionError displays (the text after "failed: " in logs and error messages). */
export function programErrorText(error: unknown): string {
  if (typeof error === "object" && error !== null && "Custom" in error) {
    return `custom program error: 0x${Number((error as { Custom: number }).Custom).toString(16)}`;
  }
  const texts: Record<string, string> = {
    InvalidAccountData: "invalid account data for instruction",
    InvalidArgument: "invalid program argument",
    InvalidInstructionData: "invalid instruction data",
    InvalidSeeds: "Provided seeds do not result in a valid address",
    IncorrectProgramId: "incorrect program id for instruction",
    MissingRequiredSignature: "missing required signature for instruction",
    NotEnoughAccountKeys: "insufficient account keys for instruction",
  };
  return texts[String(error)] ?? String(error);
}

/**
 * spl-token's Processor::process_close_account, in its order of checks: the account may not be its
 * own destination, must be an initialized token account, must hold no tokens (NonNativeHasBalance
 * 0xb), and its owner must be the authority given (OwnerMismatch 0x4) and sign; then every lamport
 * of it goes to the destination and the account is deleted.
 */
function closeAccount(
  state: LedgerState,
  step: Extract<Step, { kind: "closeAccount" }>,
  signers: ReadonlySet<string>,
): StepOutcome {
  const logs = [invoke(TOKEN_PROGRAM_ID, 1), "Program log: Instruction: CloseAccount"];
  const invalidData = (): StepOutcome => {
    logs.push(
      consumed(TOKEN_PROGRAM_ID, 1_182),
      `Program ${TOKEN_PROGRAM_ID} failed: invalid account data for instruction`,
    );
    return failed("InvalidAccountData", 1_182, logs);
  };
  const tokenError = (error: { Custom: number }, message: string): StepOutcome => {
    logs.push(`Program log: Error: ${message}`, consumed(TOKEN_PROGRAM_ID, 1_936));
    logs.push(`Program ${TOKEN_PROGRAM_ID} failed: ${programErrorText(error)}`);
    return failed(error, 1_936, logs);
  };
  if (step.account === step.destination) return invalidData();
  const account = state.tokenAccount(step.account);
  if (!account) return invalidData();
  if (account.amount !== 0n) {
    return tokenError({ Custom: 11 }, "Non-native account can only be closed if its balance is zero");
  }
  if (account.owner !== step.owner) return tokenError({ Custom: 4 }, "owner does not match");
  if (!signers.has(step.owner)) {
    logs.push(`Program ${TOKEN_PROGRAM_ID} failed: missing required signature for instruction`);
    return failed("MissingRequiredSignature", 1_936, logs);
  }
  moveLamports(state, step.account, step.destination, state.lamports(step.account));
  state.deleteTokenAccount(step.account);
  logs.push(consumed(TOKEN_PROGRAM_ID, 2_915), success(TOKEN_PROGRAM_ID));
  return { ok: true, inner: [], units: 2_915, logs };
}

function moveLamports(state: LedgerState, from: string, to: string, lamports: bigint): void {
  if (from === to) return;
  state.addLamports(from, -lamports);
  state.addLamports(to, lamports);
}

/**
 * Create / CreateIdempotent: the address must be the owner's derived account for the mint (else
 * InvalidSeeds); an existing account is a no-op for CreateIdempotent and an "already in use" failure
 * for Create; a new one takes the four CPIs agave records.
 */
function createAta(
  state: LedgerState,
  step: Extract<Step, { kind: "createAta" }>,
  context: RuntimeContext,
): StepOutcome {
  const ata = ASSOCIATED_TOKEN_PROGRAM_ID;
  const name = step.idempotent ? "CreateIdempotent" : "Create";
  if (associatedTokenAddress(step.owner, step.mint) !== step.ata) {
    return failed("InvalidSeeds", 3_000, [
      invoke(ata, 1),
      `Program log: ${name}`,
      "Program log: Error: Associated address does not match seed derivation",
      consumed(ata, 3_000),
      `Program ${ata} failed: Provided seeds do not result in a valid address`,
    ]);
  }
  const existing = state.tokenAccount(step.ata);
  if (existing || (!step.idempotent && state.lamports(step.ata) > 0n)) {
    if (!step.idempotent) {
      return failed({ Custom: 0 }, 4_000, [
        invoke(ata, 1),
        "Program log: Create",
        invoke(SYSTEM_PROGRAM_ID, 2),
        `Allocate: account Address { address: ${step.ata}, base: None } already in use`,
        `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x0`,
        consumed(ata, 4_000),
        `Program ${ata} failed: custom program error: 0x0`,
      ]);
    }
    if (existing && (existing.owner !== step.owner || existing.mint !== step.mint)) {
      return failed("InvalidAccountData", 3_000, [invoke(ata, 1)]);
    }
    return {
      ok: true,
      inner: [],
      units: 3_295,
      logs: [invoke(ata, 1), "Program log: CreateIdempotent", consumed(ata, 3_295), success(ata)],
    };
  }
  const inner = [
    {
      parsed: { info: { extensionTypes: ["immutableOwner"], mint: step.mint }, type: "getAccountDataSize" },
      program: "spl-token",
      programId: TOKEN_PROGRAM_ID,
      stackHeight: 2,
    },
    {
      parsed: {
        info: {
          lamports: RENT_EXEMPT_TOKEN_ACCOUNT,
          newAccount: step.ata,
          owner: TOKEN_PROGRAM_ID,
          source: step.payer,
          space: TOKEN_ACCOUNT_SPACE,
        },
        type: "createAccount",
      },
      program: "system",
      programId: SYSTEM_PROGRAM_ID,
      stackHeight: 2,
    },
    {
      parsed: { info: { account: step.ata }, type: "initializeImmutableOwner" },
      program: "spl-token",
      programId: TOKEN_PROGRAM_ID,
      stackHeight: 2,
    },
    {
      parsed: { info: { account: step.ata, mint: step.mint, owner: step.owner }, type: "initializeAccount3" },
      program: "spl-token",
      programId: TOKEN_PROGRAM_ID,
      stackHeight: 2,
    },
  ];
  if (!context.isMint(step.mint)) {
    return failed("IncorrectProgramId", 4_000, [
      invoke(ata, 1),
      `Program log: ${name}`,
      consumed(ata, 4_000),
      `Program ${ata} failed: incorrect program id for instruction`,
    ]);
  }
  const logs = [invoke(ata, 1), `Program log: ${name}`, invoke(TOKEN_PROGRAM_ID, 2)];
  if (state.lamports(step.payer) < RENT_EXEMPT_TOKEN_ACCOUNT) {
    logs.push(`Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`);
    return failed({ Custom: 1 }, 7_000, logs, inner.slice(0, 2));
  }
  moveLamports(state, step.payer, step.ata, RENT_EXEMPT_TOKEN_ACCOUNT);
  state.setTokenAccount(step.ata, { mint: step.mint, owner: step.owner, amount: 0n });
  logs.push(
    "Program log: Instruction: GetAccountDataSize",
    consumed(TOKEN_PROGRAM_ID, 1_569),
    `Program return: ${TOKEN_PROGRAM_ID} pQAAAAAAAAA=`,
    success(TOKEN_PROGRAM_ID),
    invoke(SYSTEM_PROGRAM_ID, 2),
    success(SYSTEM_PROGRAM_ID),
    "Program log: Initialize the associated token account",
    invoke(TOKEN_PROGRAM_ID, 2),
    "Program log: Instruction: InitializeImmutableOwner",
    consumed(TOKEN_PROGRAM_ID, 1_405),
    success(TOKEN_PROGRAM_ID),
    invoke(TOKEN_PROGRAM_ID, 2),
    "Program log: Instruction: InitializeAccount3",
    consumed(TOKEN_PROGRAM_ID, 4_188),
    success(TOKEN_PROGRAM_ID),
    consumed(ata, 20_438),
    success(ata),
  );
  return { ok: true, inner, units: 20_438, logs };
}
