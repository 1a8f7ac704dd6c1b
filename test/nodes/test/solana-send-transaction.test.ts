import { type SolanaTestNode, startSolanaTestNode } from "@mp/test-nodes/solana";
import {
  AccountLayout,
  createAssociatedTokenAccountIdempotentInstruction,
  createAssociatedTokenAccountInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SOL = 1_000_000_000n;
let node: SolanaTestNode;

beforeAll(async () => {
  node = await startSolanaTestNode({ seed: "send-transaction-test" });
});
afterAll(async () => {
  await node.stop();
});

interface RpcResponse {
  result?: unknown;
  error?: { code: number; message: string; data?: { err: unknown; logs: string[] } };
}

async function call(method: string, params: unknown[]): Promise<RpcResponse> {
  const response = await fetch(node.url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as RpcResponse;
}

async function latest(commitment = "confirmed"): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
  const answer = (await call("getLatestBlockhash", [{ commitment }])).result as {
    value: { blockhash: string; lastValidBlockHeight: number };
  };
  return answer.value;
}

/** A transaction built and signed by web3.js, as a wallet makes it. */
async function signed(
  payer: Keypair,
  instructions: TransactionInstruction[],
  options: { blockhash?: string; signers?: Keypair[] } = {},
): Promise<Transaction> {
  const blockhash = options.blockhash ?? (await latest()).blockhash;
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(payer, ...(options.signers ?? []));
  return tx;
}

const send = (tx: Transaction | Uint8Array, config: Record<string, unknown> = {}) =>
  call("sendTransaction", [
    Buffer.from(tx instanceof Transaction ? tx.serialize() : tx).toString("base64"),
    { encoding: "base64", ...config },
  ]);

const signatureOf = (tx: Transaction) => bs58.encode(tx.signature ?? new Uint8Array());

/** A wallet holding `lamports`, funded by the node's faucet. */
function funded(lamports: bigint): Keypair {
  const wallet = Keypair.generate();
  node.transfer(wallet.publicKey.toBase58(), lamports);
  node.mine();
  return wallet;
}

const transfer = (from: Keypair, to: PublicKey, lamports: bigint) =>
  SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports });

/** Signs `instructions` for `payer`, sends them, expects them accepted and mines them into a slot. */
async function sendAndMine(payer: Keypair, instructions: TransactionInstruction[]): Promise<void> {
  const tx = await signed(payer, instructions);
  expect((await send(tx)).result).toBe(signatureOf(tx));
  node.mine();
}

/** A wallet holding 1 SOL and `amount` of the node's USDC, in its associated token account `source`. */
function fundedUsdcHolder(amount: bigint): {
  usdc: { address: string };
  mint: PublicKey;
  holder: Keypair;
  source: PublicKey;
} {
  const [usdc] = node.tokens;
  if (!usdc) throw new Error("no token");
  const mint = new PublicKey(usdc.address);
  const holder = funded(SOL);
  node.transferToken(holder.publicKey.toBase58(), "USDC", amount);
  node.mine();
  return { usdc, mint, holder, source: getAssociatedTokenAddressSync(mint, holder.publicKey) };
}

describe("Solana test node sendTransaction", () => {
  it("accepts a wallet's transfer, lands it in the next slot and reports its status", async () => {
    const payer = funded(2n * SOL);
    const to = Keypair.generate().publicKey;
    const tx = await signed(payer, [transfer(payer, to, SOL)]);
    expect(await send(tx)).toEqual({ jsonrpc: "2.0", id: 1, result: signatureOf(tx) });
    // Not in a block yet.
    expect((await call("getSignatureStatuses", [[signatureOf(tx)]])).result).toMatchObject({ value: [null] });
    const [slot] = node.mine();
    expect(node.balance(to.toBase58())).toBe(SOL);
    expect(node.balance(payer.publicKey.toBase58())).toBe(SOL - 5_000n);
    expect(
      (await call("getSignatureStatuses", [[signatureOf(tx)], { searchTransactionHistory: true }])).result,
    ).toMatchObject({ value: [{ slot, err: null, status: { Ok: null }, confirmationStatus: "confirmed" }] });
    expect((await call("getBalance", [to.toBase58(), { commitment: "confirmed" }])).result).toMatchObject({
      value: Number(SOL),
    });
    // Sent again once landed: refused, nothing moves twice.
    const again = await send(tx);
    expect(again.error).toMatchObject({ code: -32002, data: { err: "AlreadyProcessed" } });
    expect(again.error?.message).toBe("Transaction simulation failed: This transaction has already been processed");
    node.mine();
    expect(node.balance(to.toBase58())).toBe(SOL);
    // Past the status cache (300 blocks), only a search of the transaction history finds it.
    node.mine(301);
    expect((await call("getSignatureStatuses", [[signatureOf(tx)]])).result).toMatchObject({ value: [null] });
    expect(
      (await call("getSignatureStatuses", [[signatureOf(tx)], { searchTransactionHistory: true }])).result,
    ).toMatchObject({ value: [{ slot, confirmations: null, confirmationStatus: "finalized" }] });
    expect((await send(tx)).error).toMatchObject({ code: -32002, data: { err: "BlockhashNotFound" } });
  });

  it("takes v0 messages and the default base58 encoding", async () => {
    const payer = funded(2n * SOL);
    const to = Keypair.generate().publicKey;
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: (await latest()).blockhash,
      instructions: [transfer(payer, to, SOL / 4n)],
    }).compileToV0Message();
    const v0 = new VersionedTransaction(message);
    v0.sign([payer]);
    const signature = bs58.encode(v0.signatures[0] ?? new Uint8Array());
    expect((await call("sendTransaction", [bs58.encode(v0.serialize())])).result).toBe(signature);
    node.mine();
    expect(node.balance(to.toBase58())).toBe(SOL / 4n);
    expect((await call("sendTransaction", ["not base58 0OIl"])).error?.code).toBe(-32602);
    expect(
      (await call("sendTransaction", [Buffer.from("garbage").toString("base64"), { encoding: "base64" }])).error,
    ).toMatchObject({ code: -32602 });
  });

  it("refuses a bad signature at preflight, and drops it silently without preflight", async () => {
    const payer = funded(2n * SOL);
    const to = Keypair.generate().publicKey;
    const tx = await signed(payer, [transfer(payer, to, SOL)]);
    const wire = Uint8Array.from(tx.serialize());
    wire[10] = (wire[10] ?? 0) ^ 0xff; // inside the first signature
    expect((await send(wire)).error).toEqual({ code: -32003, message: "Transaction signature verification failure" });
    const skipped = await send(wire, { skipPreflight: true });
    expect(typeof skipped.result).toBe("string");
    node.mine(2);
    expect(node.balance(to.toBase58())).toBe(0n);
    expect(node.transaction(skipped.result as string)).toBeUndefined();

    // The message changed after signing (the amount doubled): the payer's signature no longer covers it.
    const tampered = Uint8Array.from(tx.serialize());
    const amountAt = Buffer.from(tampered).lastIndexOf(Buffer.from(new BigUint64Array([SOL]).buffer));
    expect(amountAt).toBeGreaterThan(0);
    tampered.set(new Uint8Array(new BigUint64Array([2n * SOL]).buffer), amountAt);
    expect((await send(tampered)).error?.code).toBe(-32003);
    // A second required signer that did not sign (its signature left all zero).
    const impostor = Keypair.generate();
    const cosigned = new Transaction({ feePayer: payer.publicKey, recentBlockhash: (await latest()).blockhash }).add(
      transfer(impostor, to, SOL),
    );
    cosigned.partialSign(payer);
    expect((await send(cosigned.serialize({ requireAllSignatures: false }))).error?.code).toBe(-32003);
  });

  it("refuses an unknown blockhash and one past its last valid block height", async () => {
    const payer = funded(2n * SOL);
    const to = Keypair.generate().publicKey;
    const unknown = await signed(payer, [transfer(payer, to, SOL)], {
      blockhash: Keypair.generate().publicKey.toBase58(),
    });
    const refused = await send(unknown);
    expect(refused.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Blockhash not found",
      data: { err: "BlockhashNotFound" },
    });

    const guard = await latest();
    const height = (await call("getBlockHeight", [{ commitment: "confirmed" }])).result as number;
    expect(guard.lastValidBlockHeight).toBe(height + 150);
    expect((await call("isBlockhashValid", [guard.blockhash, { commitment: "confirmed" }])).result).toMatchObject({
      value: true,
    });
    // Mined up to one block before the last valid height: the next block may still take it.
    node.mine(guard.lastValidBlockHeight - height - 1);
    const lastChance = await signed(payer, [transfer(payer, to, SOL)], { blockhash: guard.blockhash });
    expect((await send(lastChance)).result).toBe(signatureOf(lastChance));
    node.mine();
    expect(node.transaction(signatureOf(lastChance))).toBeDefined();
    expect((await call("getBlockHeight", [{ commitment: "confirmed" }])).result).toBe(guard.lastValidBlockHeight);

    // One block later the same blockhash is refused, and without preflight the bank drops it.
    const late = await signed(payer, [transfer(payer, to, 2n)], { blockhash: guard.blockhash });
    expect((await send(late)).error).toMatchObject({ code: -32002, data: { err: "BlockhashNotFound" } });
    expect((await send(late, { skipPreflight: true })).result).toBe(signatureOf(late));
    node.mine();
    expect(node.transaction(signatureOf(late))).toBeUndefined();
    expect((await call("isBlockhashValid", [guard.blockhash, { commitment: "confirmed" }])).result).toMatchObject({
      value: false,
    });
  });

  it("refuses a fee payer that cannot pay the fee or would be left below rent", async () => {
    const nobody = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const unfunded = await signed(nobody, [transfer(nobody, to, 1n)]);
    expect((await send(unfunded)).error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.",
      data: { err: "AccountNotFound" },
    });
    // A payer may not leave itself below the rent-exempt minimum (fee included) without emptying it.
    const payer = funded(SOL);
    const drain = await signed(payer, [transfer(payer, to, SOL - 5_000n - 1n)]);
    expect((await send(drain)).error).toMatchObject({
      code: -32002,
      data: { err: { InsufficientFundsForRent: { account_index: 0 } } },
    });
    await sendAndMine(payer, [transfer(payer, to, SOL - 5_000n)]);
    expect(node.balance(payer.publicKey.toBase58())).toBe(0n);
    expect(node.balance(to.toBase58())).toBe(SOL - 5_000n);
  });

  it("runs SPL token transfers against the ledger, creating the associated token account once", async () => {
    const { usdc, mint, holder, source } = fundedUsdcHolder(5_000_000n);
    const recipient = Keypair.generate().publicKey;
    const destination = getAssociatedTokenAddressSync(mint, recipient);

    await sendAndMine(holder, [
      createAssociatedTokenAccountIdempotentInstruction(holder.publicKey, destination, recipient, mint),
      createTransferCheckedInstruction(source, mint, destination, holder.publicKey, 1_500_000n, 6),
    ]);
    expect(node.tokenBalance(recipient.toBase58(), "USDC")).toBe(1_500_000n);
    expect(node.balance(holder.publicKey.toBase58())).toBe(SOL - 5_000n - 2_039_280n);

    // Idempotent create again: a no-op (no second rent); plain Create again: "already in use".
    await sendAndMine(holder, [
      createAssociatedTokenAccountIdempotentInstruction(holder.publicKey, destination, recipient, mint),
      createTransferInstruction(source, destination, holder.publicKey, 500_000n),
    ]);
    expect(node.tokenBalance(recipient.toBase58(), "USDC")).toBe(2_000_000n);
    expect(node.balance(holder.publicKey.toBase58())).toBe(SOL - 10_000n - 2_039_280n);
    const create = await signed(holder, [
      createAssociatedTokenAccountInstruction(holder.publicKey, destination, recipient, mint),
    ]);
    expect((await send(create)).error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x0",
      data: { err: { InstructionError: [0, { Custom: 0 }] } },
    });

    // The account as a wallet reads it: spl-token's own layout decodes it.
    const info = (await call("getAccountInfo", [destination.toBase58(), { encoding: "base64" }])).result as {
      value: { owner: string; data: [string, string]; lamports: number };
    };
    expect(info.value.owner).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(info.value.lamports).toBe(2_039_280);
    const decoded = AccountLayout.decode(Buffer.from(info.value.data[0], "base64"));
    expect(decoded.mint.toBase58()).toBe(usdc.address);
    expect(decoded.owner.toBase58()).toBe(recipient.toBase58());
    expect(decoded.amount).toBe(2_000_000n);
    expect((await call("getTokenAccountBalance", [destination.toBase58()])).result).toMatchObject({
      value: { amount: "2000000", decimals: 6, uiAmountString: "2" },
    });
    expect((await call("getAccountInfo", [Keypair.generate().publicKey.toBase58()])).result).toMatchObject({
      value: null,
    });
  });

  it("fails instructions as the programs do: refused at preflight, or landed failed with the fee kept", async () => {
    const { mint, holder, source } = fundedUsdcHolder(1_000n);
    const destination = getAssociatedTokenAddressSync(mint, new PublicKey(node.faucetAddress));

    const tooMuch = await signed(holder, [
      createTransferCheckedInstruction(source, mint, destination, holder.publicKey, 1_001n, 6),
    ]);
    const refused = await send(tooMuch);
    expect(refused.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
      data: { err: { InstructionError: [0, { Custom: 1 }] } },
    });
    expect(refused.error?.data?.logs).toContain("Program log: Error: insufficient funds");
    expect((await send(tooMuch, { skipPreflight: true })).result).toBe(signatureOf(tooMuch));
    node.mine();
    expect(node.transaction(signatureOf(tooMuch))?.failed).toBe(true);
    expect(node.tokenBalance(holder.publicKey.toBase58(), "USDC")).toBe(1_000n);
    expect(node.balance(holder.publicKey.toBase58())).toBe(SOL - 5_000n);
    expect((await call("getSignatureStatuses", [[signatureOf(tooMuch)]])).result).toMatchObject({
      value: [
        { err: { InstructionError: [0, { Custom: 1 }] }, status: { Err: { InstructionError: [0, { Custom: 1 }] } } },
      ],
    });

    // Someone else's token account: the owner must sign (OwnerMismatch 0x4).
    const thief = funded(SOL);
    const theft = await signed(thief, [
      createTransferCheckedInstruction(source, mint, destination, thief.publicKey, 1n, 6),
    ]);
    expect((await send(theft)).error).toMatchObject({ data: { err: { InstructionError: [0, { Custom: 4 }] } } });
    // Wrong decimals (MintDecimalsMismatch 0x12).
    const decimals = await signed(holder, [
      createTransferCheckedInstruction(source, mint, destination, holder.publicKey, 1n, 9),
    ]);
    expect((await send(decimals)).error).toMatchObject({ data: { err: { InstructionError: [0, { Custom: 18 }] } } });
    // More SOL than the wallet has (system program 0x1), and a new wallet left below rent.
    const overdraw = await signed(holder, [transfer(holder, Keypair.generate().publicKey, 2n * SOL)]);
    expect((await send(overdraw)).error).toMatchObject({ data: { err: { InstructionError: [0, { Custom: 1 }] } } });
    const dust = await signed(holder, [transfer(holder, Keypair.generate().publicKey, 1_000n)]);
    expect((await send(dust)).error).toMatchObject({
      code: -32002,
      data: { err: { InsufficientFundsForRent: { account_index: 1 } } },
    });
    // A transfer from an account that did not sign.
    const victim = funded(SOL);
    const pull = transfer(victim, holder.publicKey, SOL / 2n);
    for (const key of pull.keys) key.isSigner = false;
    const unsigned = await signed(holder, [pull]);
    expect((await send(unsigned)).error).toMatchObject({
      data: { err: { InstructionError: [0, "MissingRequiredSignature"] } },
    });
    expect(node.balance(victim.publicKey.toBase58())).toBe(SOL);
  });

  it("closes an empty token account as SPL Token does: owner signs, rent to the destination, a fee payer apart", async () => {
    const [usdc] = node.tokens;
    if (!usdc) throw new Error("no token");
    const mint = new PublicKey(usdc.address);
    // A deposit address without SOL: its token account is emptied and closed in one transaction
    // paid by someone else (the treasury), which both sign.
    const owner = Keypair.generate();
    const payer = funded(SOL);
    node.transferToken(owner.publicKey.toBase58(), "USDC", 3_000_000n);
    node.mine();
    const account = getAssociatedTokenAddressSync(mint, owner.publicKey);
    const destination = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const rent = node.balance(account.toBase58());
    expect(rent).toBe(2_039_280n);

    // Tokens still in it (NonNativeHasBalance 0xb): refused at preflight, failed on chain, the fee kept.
    const early = await signed(payer, [createCloseAccountInstruction(account, payer.publicKey, owner.publicKey)], {
      signers: [owner],
    });
    const refused = await send(early);
    expect(refused.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0xb",
      data: { err: { InstructionError: [0, { Custom: 11 }] } },
    });
    expect(refused.error?.data?.logs).toContain(
      "Program log: Error: Non-native account can only be closed if its balance is zero",
    );
    expect((await send(early, { skipPreflight: true })).result).toBe(signatureOf(early));
    node.mine();
    expect(node.transaction(signatureOf(early))?.failed).toBe(true);
    expect(node.balance(account.toBase58())).toBe(rent);
    expect(node.balance(payer.publicKey.toBase58())).toBe(SOL - 10_000n);

    // Not the owner (OwnerMismatch 0x4), and the owner named but not signing.
    const stranger = Keypair.generate();
    const notOwner = await signed(
      payer,
      [
        createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, destination, payer.publicKey, mint),
        createTransferCheckedInstruction(account, mint, destination, owner.publicKey, 3_000_000n, 6),
        createCloseAccountInstruction(account, payer.publicKey, stranger.publicKey),
      ],
      { signers: [owner, stranger] },
    );
    expect((await send(notOwner)).error).toMatchObject({ data: { err: { InstructionError: [2, { Custom: 4 }] } } });
    const empty = Keypair.generate();
    const emptyAccount = getAssociatedTokenAddressSync(mint, empty.publicKey);
    const open = await signed(payer, [
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, emptyAccount, empty.publicKey, mint),
    ]);
    expect((await send(open)).result).toBe(signatureOf(open));
    node.mine();
    const close = createCloseAccountInstruction(emptyAccount, payer.publicKey, empty.publicKey);
    for (const key of close.keys) key.isSigner = false;
    const unsigned = await signed(payer, [close]);
    expect((await send(unsigned)).error).toMatchObject({
      data: { err: { InstructionError: [0, "MissingRequiredSignature"] } },
    });
    expect(node.balance(emptyAccount.toBase58())).toBe(2_039_280n);
    // Into itself: InvalidAccountData.
    const intoItself = await signed(payer, [createCloseAccountInstruction(account, account, owner.publicKey)], {
      signers: [owner],
    });
    expect((await send(intoItself)).error).toMatchObject({
      data: { err: { InstructionError: [0, "InvalidAccountData"] } },
    });
    // The owner's signature missing from the wire (left zero): refused before anything runs.
    const cosigned = new Transaction({ feePayer: payer.publicKey, recentBlockhash: (await latest()).blockhash }).add(
      createTransferCheckedInstruction(account, mint, destination, owner.publicKey, 3_000_000n, 6),
      createCloseAccountInstruction(account, payer.publicKey, owner.publicKey),
    );
    cosigned.partialSign(payer);
    expect((await send(cosigned.serialize({ requireAllSignatures: false }))).error?.code).toBe(-32003);

    // Emptied then closed in one transaction: the tokens move, the rent goes to the payer, the account is gone.
    const sweep = await signed(
      payer,
      [
        createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, destination, payer.publicKey, mint),
        createTransferCheckedInstruction(account, mint, destination, owner.publicKey, 3_000_000n, 6),
        createCloseAccountInstruction(account, payer.publicKey, owner.publicKey),
      ],
      { signers: [owner] },
    );
    expect((await send(sweep)).result).toBe(signatureOf(sweep));
    const before = node.balance(payer.publicKey.toBase58());
    node.mine();
    expect(node.transaction(signatureOf(sweep))?.failed).toBe(false);
    expect(node.tokenBalance(payer.publicKey.toBase58(), "USDC")).toBe(3_000_000n);
    // Two signatures' fee and the new account's rent out, the closed account's rent in.
    expect(node.balance(payer.publicKey.toBase58())).toBe(before - 10_000n - 2_039_280n + rent);
    expect(node.balance(account.toBase58())).toBe(0n);
    expect(node.balance(owner.publicKey.toBase58())).toBe(0n);
    expect((await call("getAccountInfo", [account.toBase58(), { encoding: "base64" }])).result).toMatchObject({
      value: null,
    });
    expect((await call("getTokenAccountBalance", [account.toBase58()])).error).toMatchObject({
      code: -32602,
      message: "Invalid param: could not find account",
    });
    const block = (await call("getBlock", [
      node.transaction(signatureOf(sweep))?.slot,
      { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 },
    ])) as { result: { transactions: Array<{ transaction: { message: { instructions: unknown[] } } }> } };
    const landed = block.result.transactions.find((t) => JSON.stringify(t).includes(signatureOf(sweep)))?.transaction
      .message.instructions;
    expect(landed?.[2]).toEqual({
      parsed: {
        info: {
          account: account.toBase58(),
          destination: payer.publicKey.toBase58(),
          owner: owner.publicKey.toBase58(),
        },
        type: "closeAccount",
      },
      program: "spl-token",
      programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      stackHeight: null,
    });

    // Closed twice: nothing there to close. Then a new deposit opens it again.
    const twice = await signed(payer, [createCloseAccountInstruction(account, payer.publicKey, owner.publicKey)], {
      signers: [owner],
    });
    expect((await send(twice)).error).toMatchObject({
      data: { err: { InstructionError: [0, "InvalidAccountData"] } },
    });
    node.transferToken(owner.publicKey.toBase58(), "USDC", 1_000n);
    node.mine();
    expect(node.tokenBalance(owner.publicKey.toBase58(), "USDC")).toBe(1_000n);
    expect(node.balance(account.toBase58())).toBe(2_039_280n);
  });

  it("loses incoming transactions while dropping, and takes the same bytes again later", async () => {
    const payer = funded(2n * SOL);
    const to = Keypair.generate().publicKey;
    const tx = await signed(payer, [transfer(payer, to, SOL)]);
    node.dropIncoming(true);
    try {
      expect((await send(tx)).result).toBe(signatureOf(tx));
      node.mine(3);
      expect(node.transaction(signatureOf(tx))).toBeUndefined();
      expect((await call("getSignatureStatuses", [[signatureOf(tx)]])).result).toMatchObject({ value: [null] });
    } finally {
      node.dropIncoming(false);
    }
    expect((await send(tx)).result).toBe(signatureOf(tx));
    expect((await send(tx)).result).toBe(signatureOf(tx)); // queued once
    expect(node.pendingCount()).toBe(1);
    node.mine();
    expect(node.balance(to.toBase58())).toBe(SOL);
  });

  it("answers the rent-exempt minimum as agave computes it", async () => {
    expect((await call("getMinimumBalanceForRentExemption", [0])).result).toBe(890_880);
    expect((await call("getMinimumBalanceForRentExemption", [165])).result).toBe(2_039_280);
    expect((await call("getMinimumBalanceForRentExemption", [82])).result).toBe(1_461_600);
  });
});
