import { utils } from "tronweb";
import type { TronKey } from "./keys.ts";

/** topic0 of Transfer(address,address,uint256). */
export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Selector of transfer(address,uint256). */
const TRANSFER_SELECTOR = "a9059cbb";
/** Selector of forward(address[],uint256[]) (keccak256 of the signature): the forwarder's one method. */
const FORWARD_SELECTOR = "1bfd9722";
/** fee_limit of the node's own TRC-20 calls: 100 TRX. */
const TOKEN_FEE_LIMIT = 100_000_000n;
/** java-tron's builder sets expiration to the head block's time plus 60 s. */
export const EXPIRATION_MS = 60_000;

/** One TRX payment a forwarder contract makes inside a call; `rejected`: that inner call fails (caught). */
export interface ForwardedPayment {
  to: string;
  amount: bigint;
  rejected: boolean;
}

export type Payment =
  | { kind: "trx"; from: string; to: string; amount: bigint }
  | {
      kind: "token";
      from: string;
      contract: string;
      to: string;
      amount: bigint;
      revert: boolean;
      /** fee_limit in sun: the most TRX the call may burn for energy. */
      feeLimit: bigint;
    }
  | {
      kind: "forward";
      from: string;
      contract: string;
      /** The call's call_value: what the forwarder receives and passes on. */
      amount: bigint;
      payments: readonly ForwardedPayment[];
      revert: boolean;
    };

/** A signed transaction in the JSON shape of the HTTP API, with its real protobuf txID. */
export interface SignedTransaction {
  txID: string;
  payment: Payment;
  /** `{"signature":…,"txID":…,"raw_data":…,"raw_data_hex":…}` minus `ret` (added once executed). */
  json: Record<string, unknown>;
}

export interface ReferenceBlock {
  number: number;
  blockID: string;
  /** The block's time: the transaction expires EXPIRATION_MS after it. */
  timestamp: number;
}

/** A transaction's raw_data as the HTTP API writes it (hex addresses). */
export type RawData = Record<string, unknown> & { expiration: number; timestamp: number };

/** An unsigned transaction as /wallet/createtransaction answers it: txID, raw_data, raw_data_hex. */
export interface UnsignedTransaction {
  txID: string;
  raw_data: RawData;
  raw_data_hex: string;
}

const word = (hex: string) => hex.padStart(64, "0");

/**
 * Builds and signs a transaction as a wallet does: `raw_data` with ref_block_bytes (bytes 6..8 of
 * the reference block number) and ref_block_hash (bytes 8..16 of its id), encoded to protobuf by
 * tronweb; txID = sha256(raw_data protobuf) and raw_data_hex are therefore the real ones, and the
 * signature is secp256k1 over the txID. `timestamp` must differ between otherwise equal payments
 * (as on the real chain, the same raw_data is the same transaction).
 */
export function signPayment(
  key: TronKey,
  payment: Payment,
  reference: ReferenceBlock,
  timestamp: number,
): SignedTransaction {
  const unsigned = buildTransaction(payment, reference, timestamp);
  return { txID: unsigned.txID, payment, json: { signature: [key.sign(unsigned.txID)], ...unsigned } };
}

/**
 * The unsigned transaction of a payment, as java-tron's builder makes it: reference = the given
 * (head) block, expiration = its time + 60 s, timestamp = the caller's clock.
 */
export function buildTransaction(payment: Payment, reference: ReferenceBlock, timestamp: number): UnsignedTransaction {
  // Proto3 leaves a zero fee_limit out (a call without one can burn nothing for energy).
  const feeLimit = payment.kind === "trx" ? 0n : payment.kind === "token" ? payment.feeLimit : TOKEN_FEE_LIMIT;
  const rawData: RawData = {
    contract: [contractJson(payment)],
    ref_block_bytes: reference.number.toString(16).padStart(16, "0").slice(12, 16),
    ref_block_hash: reference.blockID.slice(16, 32),
    expiration: reference.timestamp + EXPIRATION_MS,
    ...(feeLimit > 0n ? { fee_limit: Number(feeLimit) } : {}),
    timestamp,
  };
  const identity = transactionIdentity(rawData);
  return { txID: identity.txID, raw_data: rawData, raw_data_hex: identity.rawDataHex };
}

/** txID (sha256 of the protobuf raw_data) and raw_data_hex of a raw_data, encoded by tronweb; throws on a malformed one. */
export function transactionIdentity(rawData: Record<string, unknown>): { txID: string; rawDataHex: string } {
  const pb = utils.transaction.txJsonToPb({ raw_data: rawData });
  return {
    txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, "").toLowerCase(),
    rawDataHex: utils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  };
}

/** `TRANSFER_SELECTOR` call data of transfer(to, amount). */
export function transferCallData(toHex: string, amount: bigint): string {
  return `${TRANSFER_SELECTOR}${word(toHex.slice(2))}${word(amount.toString(16))}`;
}

/** The decoded arguments of transfer(address,uint256) call data, or undefined when it is another call. */
export function decodeTransferCall(data: string): { toHex: string; amount: bigint } | undefined {
  const hex = data.toLowerCase();
  if (!new RegExp(`^${TRANSFER_SELECTOR}[0-9a-f]{128}$`).test(hex)) return undefined;
  const toWord = hex.slice(8, 72);
  if (!/^0{24}/.test(toWord)) return undefined;
  return { toHex: `41${toWord.slice(24)}`, amount: BigInt(`0x${hex.slice(72)}`) };
}

function contractJson(payment: Payment): Record<string, unknown> {
  if (payment.kind === "trx") {
    return {
      parameter: {
        value: { amount: safeAmount(payment.amount), owner_address: payment.from, to_address: payment.to },
        type_url: "type.googleapis.com/protocol.TransferContract",
      },
      type: "TransferContract",
    };
  }
  const value =
    payment.kind === "forward"
      ? {
          data: forwardCallData(payment.payments),
          owner_address: payment.from,
          contract_address: payment.contract,
          call_value: safeAmount(payment.amount),
        }
      : {
          data: transferCallData(payment.to, payment.amount),
          owner_address: payment.from,
          contract_address: payment.contract,
        };
  return {
    parameter: { value, type_url: "type.googleapis.com/protocol.TriggerSmartContract" },
    type: "TriggerSmartContract",
  };
}

/** ABI call data of forward(address[] to, uint256[] amounts): two dynamic arrays of 20-byte ids and amounts. */
function forwardCallData(payments: readonly ForwardedPayment[]): string {
  const n = payments.length;
  const head = [word((64).toString(16)), word((64 + 32 * (n + 1)).toString(16))];
  const recipients = [word(n.toString(16)), ...payments.map((p) => word(p.to.slice(2)))];
  const amounts = [word(n.toString(16)), ...payments.map((p) => word(p.amount.toString(16)))];
  return `${FORWARD_SELECTOR}${[...head, ...recipients, ...amounts].join("")}`;
}

export function safeAmount(amount: bigint): number {
  if (amount <= 0n || amount > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError("the test node sends TRX amounts between 1 and 2^53 - 1 sun");
  }
  return Number(amount);
}

/** The Transfer log a TRC-20 emits: the 20-byte contract id, indexed from/to, the amount as data. */
export function transferLog(contractHex: string, fromHex: string, toHex: string, amount: bigint) {
  return {
    address: contractHex.slice(2),
    topics: [TRANSFER_TOPIC, word(fromHex.slice(2)), word(toHex.slice(2))],
    data: word(amount.toString(16)),
  };
}
