import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Keypair, type TransactionInstruction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  associatedTokenAddress,
  closeAccount,
  createAssociatedTokenAccountIdempotent,
  transferChecked,
} from "../../../chains/solana/src/send/token-instructions.ts";

const plain = (ix: TransactionInstruction) => ({
  programId: ix.programId.toBase58(),
  keys: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  data: ix.data.toString("hex"),
});

describe("SPL instructions built without spl-token", () => {
  const key = () => Keypair.generate().publicKey;
  const [mint, owner, payer, other] = [key(), key(), key(), key()];

  it("derive the associated token account as spl-token does", () => {
    expect(associatedTokenAddress(mint, owner).toBase58()).toBe(getAssociatedTokenAddressSync(mint, owner).toBase58());
  });

  it("encode CloseAccount byte for byte as spl-token does", () => {
    const ata = associatedTokenAddress(mint, owner);
    expect(plain(closeAccount(ata, payer, owner))).toEqual(plain(createCloseAccountInstruction(ata, payer, owner)));
  });

  it("encode CreateIdempotent and TransferChecked byte for byte as spl-token does", () => {
    const ata = associatedTokenAddress(mint, owner);
    expect(plain(createAssociatedTokenAccountIdempotent(payer, ata, owner, mint))).toEqual(
      plain(createAssociatedTokenAccountIdempotentInstruction(payer, ata, owner, mint)),
    );
    for (const amount of [1n, 1_500_000n, 2n ** 64n - 1n]) {
      expect(plain(transferChecked(ata, mint, other, owner, amount, 6))).toEqual(
        plain(createTransferCheckedInstruction(ata, mint, other, owner, amount, 6)),
      );
    }
  });
});
