import { utils } from "tronweb";
import type { TronKey } from "./keys.ts";

/** topic0 of Transfer(address,address,uint256). */
export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Selector of transfer(address,uint256). */
const TRANSFER_SELECTOR = "a9059cbb";
/** Selector of forward(address[],uint256[]) (keccak256 of the signature): the forwarder's one method. */
const FORWARD_SELECTOR = "1bfd9722";
const TOKEN_FEE_LIMIT = 100_000_000;
/** Transactions expire 60 s after their timestamp, as wallets set them. */
const EXPIRATION_MS = 60_000;

/** One TRX payment a forwarder contract makes inside a call; `rejected`: that inner call fails (caught). */
export interface ForwardedPayment {
  to: string;
  amount: bigint;
  rejected: boolean;
}

export type Payment =
  | { kind: "trx"; from: string; to: string; amount: bigint }
  | { kind: "token"; from: string; contract: string; to: string; amount: bigint; revert: boolean }
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
  const contract =
    payment.kind === "forward"
      ? {
          parameter: {
            value: {
              data: forwardCallData(payment.payments),
              owner_address: payment.from,
              contract_address: payment.contract,
              call_value: safeAmount(payment.amount),
            },
            type_url: "type.googleapis.com/protocol.TriggerSmartContract",
          },
          type: "TriggerSmartContract",
        }
      : payment.kind === "trx"
        ? {
            parameter: {
              value: { amount: safeAmount(payment.amount), owner_address: payment.from, to_address: payment.to },
              type_url: "type.googleapis.com/protocol.TransferContract",
            },
            type: "TransferContract",
          }
        : {
            parameter: {
              value: {
                data: `${TRANSFER_SELECTOR}${word(payment.to.slice(2))}${word(payment.amount.toString(16))}`,
                owner_address: payment.from,
                contract_address: payment.contract,
              },
              type_url: "type.googleapis.com/protocol.TriggerSmartContract",
            },
            type: "TriggerSmartContract",
          };
  const rawData: Record<string, unknown> = {
    contract: [contract],
    ref_block_bytes: reference.number.toString(16).padStart(16, "0").slice(12, 16),
    ref_block_hash: reference.blockID.slice(16, 32),
    expiration: timestamp + EXPIRATION_MS,
    ...(payment.kind === "trx" ? {} : { fee_limit: TOKEN_FEE_LIMIT }),
    timestamp,
  };
  const pb = utils.transaction.txJsonToPb({ raw_data: rawData });
  const txID = utils.transaction.txPbToTxID(pb).replace(/^0x/, "").toLowerCase();
  const rawDataHex = utils.transaction.txPbToRawDataHex(pb).toLowerCase();
  return {
    txID,
    payment,
    json: { signature: [key.sign(txID)], txID, raw_data: rawData, raw_data_hex: rawDataHex },
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

function safeAmount(amount: bigint): number {
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
