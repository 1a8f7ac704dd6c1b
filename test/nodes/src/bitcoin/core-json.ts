import { satoshisToBtcString } from "@mp/bitcoin-protocol";
import { JsonNumberLiteral, type JsonValue, stringifyJson } from "@mp/rpc";
import { crypto, type Network, type Transaction } from "bitcoinjs-lib";
import { describeScript, scriptToAsm } from "./script-json.ts";

/**
 * Bitcoin Core's JSON for transactions and blocks (src/core_write.cpp TxToUniv, src/rpc/blockchain.cpp
 * blockheaderToJSON / blockToJSON, Core 28 field order), written compactly as Core's HTTP server does.
 * Amounts are 8-decimal number literals, never floats.
 */

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Display order (reversed) of a hash held in internal byte order. */
export function displayHash(internal: Uint8Array): string {
  return hex(Uint8Array.from(internal).reverse());
}

export function btcAmount(satoshis: bigint): JsonNumberLiteral {
  return new JsonNumberLiteral(satoshisToBtcString(satoshis));
}

/** vsize as Core computes it: weight / 4 rounded up. */
export function transactionWeight(tx: Transaction): { size: number; vsize: number; weight: number } {
  const size = tx.byteLength(true);
  const weight = tx.byteLength(false) * 3 + size;
  return { size, vsize: Math.ceil(weight / 4), weight };
}

/**
 * TxToUniv for getblock verbosity 2 / getrawtransaction verbose: `fee` (in BTC) is present for
 * non-coinbase transactions when the spent outputs are known.
 */
export function transactionJsonValue(tx: Transaction, network: Network, fee?: bigint): JsonValue {
  const { size, vsize, weight } = transactionWeight(tx);
  const coinbase = tx.isCoinbase();
  const vin = tx.ins.map((input): JsonValue => {
    const witness = input.witness.length > 0 ? { txinwitness: input.witness.map((item) => hex(item)) } : {};
    if (coinbase) return { coinbase: hex(input.script), ...witness, sequence: input.sequence };
    return {
      txid: displayHash(input.hash),
      vout: input.index,
      scriptSig: { asm: scriptToAsm(input.script, true), hex: hex(input.script) },
      ...witness,
      sequence: input.sequence,
    };
  });
  const vout = tx.outs.map((output, n): JsonValue => {
    const info = describeScript(output.script, network);
    return {
      value: btcAmount(output.value),
      n,
      scriptPubKey: {
        asm: scriptToAsm(output.script),
        desc: info.desc,
        hex: hex(output.script),
        ...(info.address === undefined ? {} : { address: info.address }),
        type: info.type,
      },
    };
  });
  return {
    txid: tx.getId(),
    // The wtxid of the serialisation with witness (bitcoinjs reports 0 for a coinbase's; Core does not).
    hash: displayHash(crypto.hash256(tx.toBuffer())),
    // Core prints the version as the unsigned 32-bit field.
    version: tx.version >>> 0,
    size,
    vsize,
    weight,
    locktime: tx.locktime,
    vin,
    vout,
    ...(fee === undefined || coinbase ? {} : { fee: btcAmount(fee) }),
    hex: tx.toHex(),
  };
}

export function transactionJson(tx: Transaction, network: Network, fee?: bigint): string {
  return stringifyJson(transactionJsonValue(tx, network, fee));
}

/** What blockheaderToJSON needs of a block besides its chain position. */
export interface BlockSummary {
  hash: string;
  height: number;
  version: number;
  merkleRoot: string;
  time: number;
  medianTime: number;
  nonce: number;
  bits: number;
  chainwork: bigint;
  txCount: number;
  previousHash: string | null;
  size: number;
  strippedSize: number;
  weight: number;
}

/** GetDifficulty: how many times harder than difficulty 1 (bits 0x1d00ffff). */
export function difficultyOf(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let difficulty = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    difficulty *= 256;
    shift++;
  }
  while (shift > 29) {
    difficulty /= 256;
    shift--;
  }
  return difficulty;
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}

/**
 * A double as UniValue writes it (`ostream << setprecision(16)`, i.e. printf %.16g):
 * 4.656542373906925e-10, 53911173001054.59, 1.
 */
export function coreDouble(value: number): JsonNumberLiteral {
  if (value === 0 || !Number.isFinite(value)) return new JsonNumberLiteral("0");
  const exponent = Number(value.toExponential(15).split("e")[1]);
  const trim = (digits: string): string => (digits.includes(".") ? digits.replace(/\.?0+$/, "") : digits);
  if (exponent < -4 || exponent >= 16) {
    const mantissa = trim(value.toExponential(15).split("e")[0] ?? "0");
    const sign = exponent < 0 ? "-" : "+";
    return new JsonNumberLiteral(`${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`);
  }
  return new JsonNumberLiteral(trim(value.toFixed(15 - exponent)));
}

/** -1 confirmations and no next hash for a block that left the active chain, like Core. */
export function blockHeaderJsonValue(
  block: BlockSummary,
  confirmations: number,
  nextHash: string | null,
): { [key: string]: JsonValue } {
  return {
    hash: block.hash,
    confirmations,
    height: block.height,
    version: block.version,
    versionHex: hex32(block.version),
    merkleroot: block.merkleRoot,
    time: block.time,
    mediantime: block.medianTime,
    nonce: block.nonce,
    bits: hex32(block.bits),
    difficulty: coreDouble(difficultyOf(block.bits)),
    chainwork: block.chainwork.toString(16).padStart(64, "0"),
    nTx: block.txCount,
    ...(block.previousHash === null ? {} : { previousblockhash: block.previousHash }),
    ...(nextHash === null ? {} : { nextblockhash: nextHash }),
  };
}

/** getblock verbosity 1 (`txJson` = array of txids) or 2 (`txJson` = rendered transactions). */
export function blockJson(block: BlockSummary, confirmations: number, nextHash: string | null, txJson: string): string {
  const fields = stringifyJson({
    ...blockHeaderJsonValue(block, confirmations, nextHash),
    strippedsize: block.strippedSize,
    size: block.size,
    weight: block.weight,
  });
  return `${fields.slice(0, -1)},"tx":${txJson}}`;
}
