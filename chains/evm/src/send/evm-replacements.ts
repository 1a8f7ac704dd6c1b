import type { SignedAttempt, StoredAttempt } from "@mp/treasury/ports";
import { type Hex, type PrivateKeyAccount, parseTransaction } from "viem";
import { replacementFees, sameFees, signEvmAttempt } from "./evm-attempts.ts";

/** A zero-value transfer to an account: what filling a refused nonce costs. */
const NATIVE_TRANSFER_GAS = 21_000n;

/** The parsed transaction of an attempt `account` signed (null for a sweep's, or one without a nonce). */
function ownTransaction(account: PrivateKeyAccount, attempt: StoredAttempt) {
  // A sweep's attempt leaves a deposit address whose key this sender does not hold: never re-signed here.
  if (attempt.from !== account.address) return null;
  const old = parseTransaction(attempt.raw as Hex);
  return old.nonce === undefined ? null : { ...old, nonce: old.nonce };
}

/** The stuck attempt again, same nonce and call, fees bumped past the replacement rule (null: not ours to replace). */
export async function replaceEvmAttempt(
  account: PrivateKeyAccount,
  attempt: StoredAttempt,
  lastBaseFee: bigint | null,
  fallbackChainId: number,
): Promise<SignedAttempt | null> {
  const old = ownTransaction(account, attempt);
  if (!old?.to || old.gas === undefined) return null;
  const f = replacementFees(old, lastBaseFee);
  if (!f) return null;
  const base = {
    chainId: old.chainId ?? fallbackChainId,
    nonce: old.nonce,
    to: old.to,
    value: old.value ?? 0n,
    gas: old.gas,
    data: old.data,
  };
  return signEvmAttempt(account, base, f, attempt.orders);
}

/** A zero-value transfer to ourselves at the nonce of an attempt the node refused for good, so later nonces can land. */
export async function fillEvmNonce(
  account: PrivateKeyAccount,
  attempt: StoredAttempt,
  fallbackChainId: number,
): Promise<SignedAttempt | null> {
  const old = ownTransaction(account, attempt);
  if (!old) return null;
  const f = sameFees(old);
  if (!f) return null;
  const base = {
    chainId: old.chainId ?? fallbackChainId,
    nonce: old.nonce,
    to: account.address,
    value: 0n,
    gas: NATIVE_TRANSFER_GAS,
  };
  const signed = await signEvmAttempt(account, base, f, []);
  // Recorded as what it is: the filler of the refused attempt's nonce, carrying no send.
  return { ...signed, guard: { ...signed.guard, fills: attempt.id } };
}
