import { address as bitcoinAddress, type Network } from "bitcoinjs-lib";
import { withChecksum } from "./descriptor-checksum.ts";

/**
 * Bitcoin Core's rendering of scripts (src/core_write.cpp ScriptToAsmStr / ScriptToUniv and the
 * Solver's type names), so the test node's JSON matches a real node byte for byte.
 */

const OP_0 = 0x00;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;
const OP_1NEGATE = 0x4f;
const OP_RESERVED = 0x50;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_RETURN = 0x6a;
const OP_DUP = 0x76;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_HASH160 = 0xa9;
const OP_CHECKSIG = 0xac;
const OP_INVALIDOPCODE = 0xff;

// GetOpName for 0x61 (OP_NOP) .. 0xba (OP_CHECKSIGADD), in opcode order.
const NAMED_OPCODES = (
  "NOP VER IF NOTIF VERIF VERNOTIF ELSE ENDIF VERIFY RETURN TOALTSTACK FROMALTSTACK 2DROP 2DUP 3DUP 2OVER " +
  "2ROT 2SWAP IFDUP DEPTH DROP DUP NIP OVER PICK ROLL ROT SWAP TUCK CAT SUBSTR LEFT RIGHT SIZE INVERT AND OR " +
  "XOR EQUAL EQUALVERIFY RESERVED1 RESERVED2 1ADD 1SUB 2MUL 2DIV NEGATE ABS NOT 0NOTEQUAL ADD SUB MUL DIV MOD " +
  "LSHIFT RSHIFT BOOLAND BOOLOR NUMEQUAL NUMEQUALVERIFY NUMNOTEQUAL LESSTHAN GREATERTHAN LESSTHANOREQUAL " +
  "GREATERTHANOREQUAL MIN MAX WITHIN RIPEMD160 SHA1 SHA256 HASH160 HASH256 CODESEPARATOR CHECKSIG " +
  "CHECKSIGVERIFY CHECKMULTISIG CHECKMULTISIGVERIFY NOP1 CHECKLOCKTIMEVERIFY CHECKSEQUENCEVERIFY NOP4 NOP5 " +
  "NOP6 NOP7 NOP8 NOP9 NOP10 CHECKSIGADD"
)
  .split(" ")
  .map((name) => `OP_${name}`);
const FIRST_NAMED_OPCODE = 0x61;

export function opcodeName(opcode: number): string {
  if (opcode === OP_0) return "0";
  if (opcode === OP_1NEGATE) return "-1";
  if (opcode >= OP_1 && opcode <= OP_16) return String(opcode - OP_1 + 1);
  if (opcode === OP_PUSHDATA1) return "OP_PUSHDATA1";
  if (opcode === OP_PUSHDATA2) return "OP_PUSHDATA2";
  if (opcode === OP_PUSHDATA4) return "OP_PUSHDATA4";
  if (opcode === OP_RESERVED) return "OP_RESERVED";
  if (opcode === OP_INVALIDOPCODE) return "OP_INVALIDOPCODE";
  return NAMED_OPCODES[opcode - FIRST_NAMED_OPCODE] ?? "OP_UNKNOWN";
}

interface ScriptOp {
  opcode: number;
  /** Pushed bytes, for push opcodes. */
  data: Uint8Array | null;
}

/** Splits a script into operations like CScript::GetOp; null marks an unparseable remainder. */
export function parseScript(script: Uint8Array): (ScriptOp | null)[] {
  const ops: (ScriptOp | null)[] = [];
  let pc = 0;
  while (pc < script.length) {
    const opcode = script[pc++] as number;
    if (opcode > OP_PUSHDATA4) {
      ops.push({ opcode, data: null });
      continue;
    }
    let size = opcode;
    if (opcode === OP_PUSHDATA1 || opcode === OP_PUSHDATA2 || opcode === OP_PUSHDATA4) {
      const width = opcode === OP_PUSHDATA1 ? 1 : opcode === OP_PUSHDATA2 ? 2 : 4;
      if (pc + width > script.length) {
        ops.push(null);
        return ops;
      }
      size = 0;
      for (let i = width - 1; i >= 0; i--) size = size * 256 + (script[pc + i] as number);
      pc += width;
    }
    if (pc + size > script.length) {
      ops.push(null);
      return ops;
    }
    ops.push({ opcode, data: script.subarray(pc, pc + size) });
    pc += size;
  }
  return ops;
}

/** CScriptNum decoding without the minimal-encoding rule (little endian, sign in the top bit). */
function scriptNumber(data: Uint8Array): bigint {
  if (data.length === 0) return 0n;
  let result = 0n;
  for (let i = 0; i < data.length; i++) result |= BigInt(data[i] as number) << BigInt(8 * i);
  const last = data[data.length - 1] as number;
  if (last & 0x80) return -(result & ~(0x80n << BigInt(8 * (data.length - 1))));
  return result;
}

const SIGHASH_NAMES: Readonly<Record<number, string>> = {
  1: "ALL",
  129: "ALL|ANYONECANPAY",
  2: "NONE",
  130: "NONE|ANYONECANPAY",
  3: "SINGLE",
  131: "SINGLE|ANYONECANPAY",
};

/** IsValidSignatureEncoding (strict DER plus the hash-type byte), from Core's interpreter. */
function isStrictDerSignature(sig: Uint8Array): boolean {
  const at = (i: number): number => sig[i] ?? 0;
  if (sig.length < 9 || sig.length > 73) return false;
  if (at(0) !== 0x30 || at(1) !== sig.length - 3) return false;
  const lenR = at(3);
  if (5 + lenR >= sig.length) return false;
  const lenS = at(5 + lenR);
  if (lenR + lenS + 7 !== sig.length) return false;
  if (at(2) !== 0x02 || lenR === 0 || at(4) & 0x80) return false;
  if (lenR > 1 && at(4) === 0x00 && !(at(5) & 0x80)) return false;
  if (at(lenR + 4) !== 0x02 || lenS === 0 || at(lenR + 6) & 0x80) return false;
  if (lenS > 1 && at(lenR + 6) === 0x00 && !(at(lenR + 7) & 0x80)) return false;
  return true;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** ScriptToAsmStr; `decodeSighash` for scriptSigs, where signatures show as `<hex>[ALL]`. */
export function scriptToAsm(script: Uint8Array, decodeSighash = false): string {
  const unspendable = (script.length > 0 && script[0] === OP_RETURN) || script.length > 10_000;
  const parts: string[] = [];
  for (const op of parseScript(script)) {
    if (op === null) {
      parts.push("[error]");
      break;
    }
    if (op.data === null) {
      parts.push(opcodeName(op.opcode));
    } else if (op.data.length <= 4) {
      parts.push(scriptNumber(op.data).toString());
    } else if (decodeSighash && !unspendable && isStrictDerSignature(op.data)) {
      const name = SIGHASH_NAMES[op.data[op.data.length - 1] as number];
      parts.push(name === undefined ? hex(op.data) : `${hex(op.data.subarray(0, -1))}[${name}]`);
    } else {
      parts.push(hex(op.data));
    }
  }
  return parts.join(" ");
}

export type ScriptType =
  | "pubkey"
  | "pubkeyhash"
  | "scripthash"
  | "witness_v0_keyhash"
  | "witness_v0_scripthash"
  | "witness_v1_taproot"
  | "anchor"
  | "witness_unknown"
  | "nulldata"
  | "nonstandard";

export interface ScriptInfo {
  type: ScriptType;
  address?: string;
  desc: string;
}

function isPushOnly(script: Uint8Array, from: number): boolean {
  for (const op of parseScript(script.subarray(from))) {
    if (op === null || (op.data === null && op.opcode > OP_16)) return false;
  }
  return true;
}

function isPubKey(key: Uint8Array): boolean {
  if (key.length === 33) return key[0] === 0x02 || key[0] === 0x03;
  if (key.length === 65) return key[0] === 0x04 || key[0] === 0x06 || key[0] === 0x07;
  return false;
}

/** The Solver's type, the address (when one exists) and the inferred descriptor, as Core shows them. */
export function describeScript(script: Uint8Array, network: Network): ScriptInfo {
  const length = script.length;
  const byte = (i: number): number => script[i] ?? -1;
  const addressed = (type: ScriptType, address: string): ScriptInfo => ({
    type,
    address,
    desc: withChecksum(`addr(${address})`),
  });
  if (length === 23 && byte(0) === OP_HASH160 && byte(1) === 0x14 && byte(22) === OP_EQUAL) {
    return addressed("scripthash", bitcoinAddress.toBase58Check(script.subarray(2, 22), network.scriptHash));
  }
  // Witness program: version opcode, then one push of 2..40 bytes filling the script.
  const version = byte(0);
  if (length >= 4 && length <= 42 && (version === OP_0 || (version >= OP_1 && version <= OP_16))) {
    if (byte(1) + 2 === length) {
      const program = script.subarray(2);
      const witnessVersion = version === OP_0 ? 0 : version - OP_1 + 1;
      const address = bitcoinAddress.toBech32(program, witnessVersion, network.bech32);
      if (witnessVersion === 0 && program.length === 20) return addressed("witness_v0_keyhash", address);
      if (witnessVersion === 0 && program.length === 32) return addressed("witness_v0_scripthash", address);
      if (witnessVersion === 1 && program.length === 32) {
        return { type: "witness_v1_taproot", address, desc: withChecksum(`rawtr(${hex(program)})`) };
      }
      if (witnessVersion === 1 && program.length === 2 && program[0] === 0x4e && program[1] === 0x73) {
        return addressed("anchor", address);
      }
      if (witnessVersion !== 0) return addressed("witness_unknown", address);
    }
  }
  if (length >= 1 && byte(0) === OP_RETURN && isPushOnly(script, 1)) {
    return { type: "nulldata", desc: withChecksum(`raw(${hex(script)})`) };
  }
  if ((length === 35 || length === 67) && byte(0) === length - 2 && byte(length - 1) === OP_CHECKSIG) {
    const key = script.subarray(1, length - 1);
    if (isPubKey(key)) return { type: "pubkey", desc: withChecksum(`pk(${hex(key)})`) };
  }
  if (
    length === 25 &&
    byte(0) === OP_DUP &&
    byte(1) === OP_HASH160 &&
    byte(2) === 0x14 &&
    byte(23) === OP_EQUALVERIFY &&
    byte(24) === OP_CHECKSIG
  ) {
    return addressed("pubkeyhash", bitcoinAddress.toBase58Check(script.subarray(3, 23), network.pubKeyHash));
  }
  return { type: "nonstandard", desc: withChecksum(`raw(${hex(script)})`) };
}
