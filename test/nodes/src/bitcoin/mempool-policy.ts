import * as ecc from "@bitcoinerlab/secp256k1";
import { satoshisToBtcString } from "@mp/bitcoin-protocol";
import { crypto, script, Transaction } from "bitcoinjs-lib";

/**
 * What Bitcoin Core checks before a transaction enters its mempool (src/consensus/tx_check.cpp
 * CheckTransaction, src/policy/policy.cpp IsStandardTx dust, src/validation.cpp script checks,
 * src/policy/rbf.cpp), with Core's reject reasons, so that a sender tested against the test node
 * meets the same refusals it would meet on a real node. Scripts: P2WPKH spends are verified in
 * full (BIP-143 sighash, secp256k1 signature); the node's coins are all P2WPKH or coinbase payouts.
 */

/** RPC_TRANSACTION_ERROR / RPC_TRANSACTION_REJECTED / RPC_TRANSACTION_ALREADY_IN_CHAIN (src/rpc/protocol.h). */
export const RPC_TRANSACTION_ERROR = -25;
export const RPC_TRANSACTION_REJECTED = -26;
export const RPC_TRANSACTION_ALREADY_IN_CHAIN = -27;

/** -minrelaytxfee and -incrementalrelayfee defaults: 1 sat/vB (1000 sat/kvB). */
export const MIN_RELAY_SAT_PER_KVB = 1000n;
const MAX_MONEY = 21_000_000n * 100_000_000n;
/** BIP-125: an input with a sequence below this signals replaceability. */
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;

/** A refusal with Core's RPC code and reject reason. */
export class TransactionRejected extends Error {
  constructor(
    message: string,
    readonly code: number = RPC_TRANSACTION_REJECTED,
  ) {
    super(message);
  }
}

/** Core's FormatMoney: 8 decimals, always. */
export function formatMoney(satoshis: bigint): string {
  const text = satoshisToBtcString(satoshis);
  const [whole, fraction = ""] = text.split(".");
  return `${whole}.${fraction.padEnd(8, "0")}`;
}

/** CFeeRate::ToString: "0.00010000 BTC/kvB". */
export function formatFeeRate(satPerKvb: bigint): string {
  return `${formatMoney(satPerKvb)} BTC/kvB`;
}

/** CFeeRate(fee, vsize).GetFeePerK(): satoshis per 1000 vbytes, truncated. */
export function feeRatePerKvb(fee: bigint, vsize: number): bigint {
  return (fee * 1000n) / BigInt(vsize);
}

export function virtualSize(tx: Transaction): number {
  return Math.ceil((tx.byteLength(false) * 3 + tx.byteLength(true)) / 4);
}

/** CheckTransaction: the context-free consensus checks. */
export function checkTransaction(tx: Transaction): void {
  if (tx.ins.length === 0) throw new TransactionRejected("bad-txns-vin-empty");
  if (tx.outs.length === 0) throw new TransactionRejected("bad-txns-vout-empty");
  let total = 0n;
  for (const output of tx.outs) {
    if (output.value < 0n) throw new TransactionRejected("bad-txns-vout-negative");
    if (output.value > MAX_MONEY) throw new TransactionRejected("bad-txns-vout-toolarge");
    total += output.value;
    if (total > MAX_MONEY) throw new TransactionRejected("bad-txns-txouttotal-toolarge");
  }
  const seen = new Set<string>();
  for (const input of tx.ins) {
    const point = `${Buffer.from(input.hash).toString("hex")}:${input.index}`;
    if (seen.has(point)) throw new TransactionRejected("bad-txns-inputs-duplicate");
    seen.add(point);
  }
  if (tx.isCoinbase()) throw new TransactionRejected("coinbase");
}

/**
 * GetDustThreshold at the default -dustrelayfee (3 sat/vB): the output's size plus the size of the
 * input that would spend it. OP_RETURN outputs are exempt.
 */
export function dustThreshold(outputScript: Uint8Array): bigint {
  if (outputScript[0] === 0x6a) return 0n;
  const outputSize = 8 + (outputScript.length < 0xfd ? 1 : 3) + outputScript.length;
  const isWitnessProgram =
    outputScript.length >= 4 &&
    outputScript.length <= 42 &&
    (outputScript[0] === 0x00 || ((outputScript[0] ?? 0) >= 0x51 && (outputScript[0] ?? 0) <= 0x60)) &&
    outputScript[1] === outputScript.length - 2;
  // A witness input spends 32+4+1+(107/4)+4 bytes; any other 32+4+1+107+4.
  const inputSize = isWitnessProgram ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(outputSize + inputSize) * 3000n) / 1000n;
}

/** IsStandardTx's dust rule. */
export function checkDust(tx: Transaction): void {
  for (const output of tx.outs) {
    if (output.value < dustThreshold(output.script)) throw new TransactionRejected("dust");
  }
}

function scriptFailure(reason: string): TransactionRejected {
  return new TransactionRejected(`mandatory-script-verify-flag-failed (${reason})`);
}

/**
 * Verifies input `index` spending `prevout` (script and amount): P2WPKH in full, as Core's
 * interpreter does with the mandatory flags (P2SH, WITNESS, DERSIG...).
 */
export function verifyInput(tx: Transaction, index: number, prevout: { script: Uint8Array; value: bigint }): void {
  const input = tx.ins[index];
  if (input === undefined) throw new RangeError(`no input ${index}`);
  const program = prevout.script;
  const isP2wpkh = program.length === 22 && program[0] === 0x00 && program[1] === 0x14;
  if (!isP2wpkh) {
    // Honest limit of this node: it only ever creates P2WPKH coins (wallet, faucet) and the coinbase
    // payouts tests choose; anything else is refused rather than accepted unchecked.
    throw new TransactionRejected(
      "non-mandatory-script-verify-flag (this test node verifies P2WPKH spends only)",
      RPC_TRANSACTION_REJECTED,
    );
  }
  if (input.script.length > 0) throw scriptFailure("Witness requires empty scriptSig");
  if (input.witness.length === 0) throw scriptFailure("Witness program was passed an empty witness");
  if (input.witness.length !== 2) throw scriptFailure("Witness program hash mismatch");
  const [signature, publicKey] = input.witness as [Uint8Array, Uint8Array];
  const keyHash = program.subarray(2);
  if (!Buffer.from(crypto.hash160(publicKey)).equals(Buffer.from(keyHash))) {
    throw scriptFailure("Witness program hash mismatch");
  }
  if (signature.length === 0) {
    throw scriptFailure("Script evaluated without error but finished with a false/empty top stack element");
  }
  let decoded: { signature: Uint8Array; hashType: number };
  try {
    decoded = script.signature.decode(signature);
  } catch {
    throw scriptFailure("Non-canonical DER signature");
  }
  const baseType = decoded.hashType & 0x1f;
  if (baseType < Transaction.SIGHASH_ALL || baseType > Transaction.SIGHASH_SINGLE) {
    // Not standard (SCRIPT_VERIFY_STRICTENC): Core reports it as a non-mandatory failure.
    throw new TransactionRejected("non-mandatory-script-verify-flag (Signature hash type missing or not understood)");
  }
  const scriptCode = Uint8Array.from([0x76, 0xa9, 0x14, ...keyHash, 0x88, 0xac]);
  const sighash = tx.hashForWitnessV0(index, scriptCode, prevout.value, decoded.hashType);
  let valid = false;
  try {
    valid = ecc.isPoint(publicKey) && ecc.verify(sighash, publicKey, decoded.signature);
  } catch {
    valid = false;
  }
  if (!valid) throw scriptFailure("Script evaluated without error but finished with a false/empty top stack element");
}

/** BIP-125 rule 1 as an input's sequence says it. */
export function signalsReplaceability(tx: Transaction): boolean {
  return tx.ins.some((input) => input.sequence <= MAX_BIP125_RBF_SEQUENCE);
}
