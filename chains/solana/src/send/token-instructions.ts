import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";

/**
 * The SPL instructions the treasury sends, built with @solana/web3.js alone. Written here
 * instead of imported from @solana/spl-token because spl-token loads bigint-buffer, whose native
 * binding is not built under pnpm (its install script is not allowed) and which then prints
 * "bigint: Failed to load bindings, pure JS will be used" on stderr of every process that imports
 * it: every `payments` command, breaking the one-line error contract of the CLI. The layouts are
 * the programs' documented ones; the Solana test node and the sender tests check them against
 * spl-token's own encoders.
 */
export const TOKEN_PROGRAM_ID = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");

/** The owner's associated token account of `mint`: the PDA of [owner, token program, mint]. */
export function associatedTokenAddress(mint: PublicKey, owner: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  )[0];
}

/** How an instruction uses an account, as the programs' docs list it: `s` signs it, `w` writes it. */
type AccountUse = "" | "w" | "s" | "sw";

/** An instruction of `programId` on `accounts`, in the program's order. */
function instruction(
  programId: PublicKey,
  accounts: ReadonlyArray<readonly [PublicKey, AccountUse]>,
  data: Buffer,
): TransactionInstruction {
  const keys = accounts.map(([pubkey, use]) => ({
    pubkey,
    isSigner: use.includes("s"),
    isWritable: use.includes("w"),
  }));
  return new TransactionInstruction({ programId, keys, data });
}

/** Associated Token Account program, CreateIdempotent (instruction 1): succeeds when it exists. */
export function createAssociatedTokenAccountIdempotent(
  payer: PublicKey,
  account: PublicKey,
  owner: PublicKey,
  mint: PublicKey,
): TransactionInstruction {
  const accounts = [
    [payer, "sw"],
    [account, "w"],
    [owner, ""],
    [mint, ""],
    [SystemProgram.programId, ""],
    [TOKEN_PROGRAM_ID, ""],
  ] as const;
  return instruction(ASSOCIATED_TOKEN_PROGRAM_ID, accounts, Buffer.from([1]));
}

/** Token program, TransferChecked (instruction 12): u64 amount little-endian, then the mint's decimals. */
export function transferChecked(
  source: PublicKey,
  mint: PublicKey,
  destination: PublicKey,
  owner: PublicKey,
  amount: bigint,
  decimals: number,
): TransactionInstruction {
  const data = Buffer.alloc(10);
  data.writeUInt8(12, 0);
  data.writeBigUInt64LE(amount, 1);
  data.writeUInt8(decimals, 9);
  return instruction(
    TOKEN_PROGRAM_ID,
    [
      [source, "w"],
      [mint, ""],
      [destination, "w"],
      [owner, "s"],
    ],
    data,
  );
}

/**
 * Token program, CloseAccount (instruction 9): an empty token account's lamports (its rent) go to
 * `destination` and the account is deleted; `owner` signs.
 */
export function closeAccount(account: PublicKey, destination: PublicKey, owner: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: account, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data: Buffer.from([9]),
  });
}
