import { JsonNumberLiteral, stringifyJson } from "@mp/rpc";
import { utils } from "tronweb";
import { z } from "zod";
import { addressToHex } from "./keys.ts";
import {
  buildTransaction,
  decodeTransferCall,
  type Payment,
  type SignedTransaction,
  transactionIdentity,
  type UnsignedTransaction,
} from "./transactions.ts";
import { renderTransaction, renderTransactionInfo, TOKEN_TRANSFER_ENERGY, type TronChain } from "./tron-chain.ts";

export type Answer = { status: number; body: string };
const ok = (body: string): Answer => ({ status: 200, body });
/** java-tron reports failures of its servlets as HTTP 200 with `{"Error": "<class> : <message>"}`. */
const javaError = (message: string): Answer => ({ status: 200, body: JSON.stringify({ Error: message }) });
const validateError = (message: string) =>
  javaError(`class org.tron.core.exception.ContractValidateException : ${message}`);
const hex = (text: string) => Buffer.from(text).toString("hex");

/** java-tron's limit on fee_limit (the chain parameter getMaxFeeLimit): 15,000 TRX. */
const MAX_FEE_LIMIT = 15_000_000_000n;
/** A transaction may expire at most 24 h after the head block (java-tron's MAXIMUM_TIME_UNTIL_EXPIRATION). */
const MAX_EXPIRATION_AHEAD_MS = 24 * 3_600_000;
const BALANCE_OF_SELECTOR = "70a08231";
const BALANCE_OF_ENERGY = 535;
const REVERT_ENERGY = 1_215;
/** What getaccountresource reports of the whole network (mainnet's figures; constant here). */
const NETWORK_RESOURCES = {
  freeNetLimit: 600,
  TotalNetLimit: 43_200_000_000,
  TotalNetWeight: 84_687_233_463_517,
  TotalEnergyLimit: 180_000_000_000,
  TotalEnergyWeight: 13_369_831_825,
};

/** A hex (`41…`) or base58 (`T…`) address, as the API takes either (with `visible`). */
const addressSchema = z.string().transform((value, ctx) => {
  const hexForm = /^41[0-9a-fA-F]{40}$/.test(value) ? value.toLowerCase() : addressToHex(value);
  if (hexForm === undefined) {
    ctx.addIssue({ code: "custom", message: "Invalid address" });
    return z.NEVER;
  }
  return hexForm;
});
const sunSchema = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform((value) => BigInt(value));

const createSchema = z.object({ owner_address: addressSchema, to_address: addressSchema, amount: sunSchema });
const triggerSchema = z.object({
  owner_address: addressSchema,
  contract_address: addressSchema,
  function_selector: z.string().optional(),
  parameter: z.string().optional(),
  data: z.string().optional(),
  fee_limit: sunSchema.optional(),
  call_value: sunSchema.optional(),
});
const valueSchema = z.object({ value: z.string().regex(/^[0-9a-fA-F]{64}$/) });
const addressBodySchema = z.object({ address: addressSchema });
const signedSchema = z.object({
  raw_data: z
    .object({
      contract: z.array(
        z.object({ type: z.string(), parameter: z.object({ value: z.record(z.string(), z.unknown()) }) }),
      ),
      ref_block_bytes: z.string(),
      ref_block_hash: z.string(),
      expiration: z.number().int(),
      timestamp: z.number().int().optional(),
      fee_limit: z.number().int().optional(),
    })
    .passthrough(),
  signature: z.array(z.string()).optional(),
});

/** What the wallet endpoints need of the node around the chain. */
export interface WalletContext {
  chain: TronChain;
  /** The node's TRC-20 contract (hex). */
  tokenHex: string;
  /** A timestamp for a new transaction: the node's clock, strictly increasing. */
  now(): number;
  /** java-tron's storage.transHistory.switch: off, no TransactionInfo is kept (receipts answer {} / []). */
  transactionHistory: boolean;
  /** java-tron's vm.saveInternalTx (off by default there, on at TronGrid): off, receipts carry no internal_transactions. */
  internalTransactions: boolean;
}

/** A TransactionInfo (or a list of them) as the node keeps it: without internal_transactions unless it saves them. */
export function keptInfo(context: Pick<WalletContext, "internalTransactions">, json: string): string {
  if (context.internalTransactions || !json.includes('"internal_transactions"')) return json;
  const strip = (info: Record<string, unknown>) => {
    const { internal_transactions: _dropped, ...kept } = info;
    return kept;
  };
  const parsed = JSON.parse(json) as Record<string, unknown> | Array<Record<string, unknown>>;
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(strip) : strip(parsed));
}

/** Handles `/wallet/*` endpoints of the sending side; undefined for a path it does not serve. */
export function walletRoute(context: WalletContext, path: string, body: unknown): Answer | undefined {
  switch (path) {
    case "/wallet/createtransaction":
      return createTransaction(context, body);
    case "/wallet/triggersmartcontract":
      return triggerSmartContract(context, body, false);
    case "/wallet/triggerconstantcontract":
      return triggerSmartContract(context, body, true);
    case "/wallet/broadcasttransaction":
      return broadcast(context, body);
    case "/wallet/gettransactionbyid": {
      const parsed = valueSchema.safeParse(body);
      if (!parsed.success) return ok("{}");
      const found = context.chain.find(parsed.data.value.toLowerCase());
      return ok(found ? JSON.stringify(renderTransaction(found.included)) : "{}");
    }
    case "/wallet/gettransactioninfobyid": {
      const parsed = valueSchema.safeParse(body);
      if (!parsed.success) return ok("{}");
      const found = context.transactionHistory ? context.chain.find(parsed.data.value.toLowerCase()) : undefined;
      return ok(found ? keptInfo(context, renderTransactionInfo(found.block, found.included)) : "{}");
    }
    case "/wallet/getaccount": {
      const parsed = addressBodySchema.safeParse(body);
      if (!parsed.success) return javaError("class java.lang.IllegalArgumentException : Invalid address");
      const address = parsed.data.address;
      if (!context.chain.hasAccount(address)) return ok("{}");
      const balance = context.chain.balance("trx", address);
      return ok(
        stringifyJson({ address, ...(balance > 0n ? { balance: new JsonNumberLiteral(balance.toString()) } : {}) }),
      );
    }
    case "/wallet/getaccountresource": {
      const parsed = addressBodySchema.safeParse(body);
      if (!parsed.success) return javaError("class java.lang.IllegalArgumentException : Invalid address");
      if (!context.chain.hasAccount(parsed.data.address)) return ok("{}");
      const { limit, used } = context.chain.energy(parsed.data.address);
      return ok(
        JSON.stringify({
          ...NETWORK_RESOURCES,
          ...(used > 0n ? { EnergyUsed: Number(used) } : {}),
          ...(limit > 0n ? { EnergyLimit: Number(limit) } : {}),
        }),
      );
    }
    case "/wallet/getchainparameters":
      return ok(
        JSON.stringify({
          chainParameter: [
            { key: "getTransactionFee", value: 1_000 },
            { key: "getEnergyFee", value: Number(context.chain.energyPrice) },
            { key: "getMaxFeeLimit", value: Number(MAX_FEE_LIMIT) },
          ],
        }),
      );
    default:
      return undefined;
  }
}

function reference(chain: TronChain) {
  const tip = chain.tip();
  return { number: tip.number, blockID: tip.blockID, timestamp: tip.timestamp };
}

function unsignedJson(tx: UnsignedTransaction): Record<string, unknown> {
  return { visible: false, txID: tx.txID, raw_data: tx.raw_data, raw_data_hex: tx.raw_data_hex };
}

/** TRX the owner's pending transactions already spend (java-tron validates against its pending state). */
function pendingSpend(chain: TronChain, ownerHex: string): bigint {
  return chain
    .pendingTransactions()
    .reduce(
      (sum, tx) => (tx.payment.kind === "trx" && tx.payment.from === ownerHex ? sum + tx.payment.amount : sum),
      0n,
    );
}

/** Validates a TransferContract as java-tron's TransferActuator does; returns the refusal, or undefined. */
function validateTransfer(chain: TronChain, payment: Extract<Payment, { kind: "trx" }>): string | undefined {
  if (payment.amount <= 0n) return "Amount must be greater than 0.";
  if (payment.from === payment.to) return "Cannot transfer TRX to yourself.";
  if (!chain.hasAccount(payment.from)) return "Validate TransferContract error, no OwnerAccount.";
  if (chain.balance("trx", payment.from) - pendingSpend(chain, payment.from) < payment.amount) {
    return "Validate TransferContract error, balance is not sufficient.";
  }
  if (payment.amount > BigInt(Number.MAX_SAFE_INTEGER)) return "Amount is too large for this node.";
  return undefined;
}

function createTransaction(context: WalletContext, body: unknown): Answer {
  const parsed = createSchema.safeParse(body);
  if (!parsed.success) {
    return javaError(`class java.lang.IllegalArgumentException : ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  const payment: Payment = {
    kind: "trx",
    from: parsed.data.owner_address,
    to: parsed.data.to_address,
    amount: parsed.data.amount,
  };
  const refusal = validateTransfer(context.chain, payment);
  if (refusal !== undefined) return validateError(refusal);
  return ok(JSON.stringify(unsignedJson(buildTransaction(payment, reference(context.chain), context.now()))));
}

/** TransactionExtention with a failed Return: `{"result": {"code", "message": hex}}`. */
function extentionError(code: string, message: string): Answer {
  return ok(JSON.stringify({ result: { code, message: hex(message) } }));
}

/**
 * triggersmartcontract (build a call) and triggerconstantcontract (run it without a transaction:
 * energy used and return value). The node's one contract is its TRC-20: transfer(address,uint256)
 * and balanceOf(address).
 */
function triggerSmartContract(context: WalletContext, body: unknown, constant: boolean): Answer {
  const parsed = triggerSchema.safeParse(body);
  if (!parsed.success) {
    return javaError(`class java.lang.IllegalArgumentException : ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  const request = parsed.data;
  const data =
    request.function_selector === undefined
      ? (request.data ?? "").toLowerCase()
      : `${utils.ethersUtils.id(request.function_selector.replace(/\s/g, "")).slice(2, 10)}${(request.parameter ?? "").toLowerCase()}`;
  if (request.contract_address !== context.tokenHex) {
    return extentionError("CONTRACT_VALIDATE_ERROR", "Contract validate error : No contract or not a smart contract");
  }
  const feeLimit = request.fee_limit ?? 0n;
  if (feeLimit < 0n || feeLimit > MAX_FEE_LIMIT) {
    return extentionError(
      "CONTRACT_VALIDATE_ERROR",
      `Contract validate error : feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT}`,
    );
  }
  const chain = context.chain;
  if (constant && data.startsWith(BALANCE_OF_SELECTOR) && data.length === 72) {
    const holder = `41${data.slice(32)}`;
    const balance = chain.balance("token", holder);
    return ok(
      JSON.stringify({
        result: { result: true },
        energy_used: BALANCE_OF_ENERGY,
        constant_result: [balance.toString(16).padStart(64, "0")],
      }),
    );
  }
  const call = decodeTransferCall(data);
  if (call === undefined || (request.call_value ?? 0n) !== 0n) {
    return extentionError("CONTRACT_EXE_ERROR", "REVERT opcode executed");
  }
  const payment: Payment = {
    kind: "token",
    from: request.owner_address,
    contract: context.tokenHex,
    to: call.toHex,
    amount: call.amount,
    revert: false,
    feeLimit,
  };
  const tx = unsignedJson(buildTransaction(payment, reference(chain), context.now()));
  if (!constant) return ok(JSON.stringify({ result: { result: true }, transaction: tx }));
  if (chain.balance("token", request.owner_address) < call.amount) {
    return ok(
      JSON.stringify({
        result: { result: true },
        energy_used: REVERT_ENERGY,
        constant_result: [""],
        transaction: { ret: [{ ret: "FAILED" }], ...tx },
      }),
    );
  }
  return ok(
    JSON.stringify({
      result: { result: true },
      energy_used: Number(TOKEN_TRANSFER_ENERGY),
      constant_result: [(1).toString(16).padStart(64, "0")],
      transaction: { ret: [{}], ...tx },
    }),
  );
}

/** GrpcAPI.Return as the servlet prints it: `result` is left out when false (proto3 default). */
function refused(txid: string, code: string, message: string): Answer {
  return ok(JSON.stringify({ code, txid, message: hex(message) }));
}

/**
 * broadcasttransaction, validated in java-tron's order: duplicate (DUP_TRANSACTION_ERROR), TaPoS
 * (ref block of this chain, TAPOS_ERROR), expiration against the head block's time
 * (TRANSACTION_EXPIRATION_ERROR), the owner's signature recovered from sha256(raw_data)
 * (SIGERROR), then the contract (CONTRACT_VALIDATE_ERROR). The txID is computed from raw_data,
 * never taken from the request. Accepted transactions land in the next block.
 */
function broadcast(context: WalletContext, body: unknown): Answer {
  const parsed = signedSchema.safeParse(body);
  if (!parsed.success) {
    return javaError(
      `class org.tron.core.services.http.JsonFormat$ParseException : ${parsed.error.issues[0]?.message}`,
    );
  }
  const rawData = parsed.data.raw_data;
  let txID: string;
  try {
    txID = transactionIdentity(rawData).txID;
  } catch (error) {
    return javaError(`class java.lang.IllegalArgumentException : ${(error as Error).message}`);
  }
  const chain = context.chain;
  if (chain.find(txID) || chain.isPending(txID)) return refused(txID, "DUP_TRANSACTION_ERROR", "Dup transaction.");
  if (!chain.knowsReference(rawData.ref_block_bytes, rawData.ref_block_hash)) {
    return refused(
      txID,
      "TAPOS_ERROR",
      `Tapos check error: ref block ${rawData.ref_block_bytes}/${rawData.ref_block_hash} is not on this chain`,
    );
  }
  const headTime = chain.tip().timestamp;
  if (rawData.expiration <= headTime || rawData.expiration > headTime + MAX_EXPIRATION_AHEAD_MS) {
    return refused(
      txID,
      "TRANSACTION_EXPIRATION_ERROR",
      `Transaction expired: expiration ${rawData.expiration}, head block time ${headTime}`,
    );
  }
  const payment = toPayment(context, rawData);
  if (typeof payment === "string")
    return refused(txID, "CONTRACT_VALIDATE_ERROR", `Contract validate error : ${payment}`);
  const signatures = parsed.data.signature ?? [];
  if (signatures.length === 0) return refused(txID, "SIGERROR", "Validate signature error: miss sig or contract");
  if (signatures.length > 1) {
    return refused(
      txID,
      "SIGERROR",
      `Validate signature error: Signature count is ${signatures.length} more than key counts of permission : 1`,
    );
  }
  const signer = recover(txID, signatures[0] as string);
  if (signer !== payment.from) {
    return refused(
      txID,
      "SIGERROR",
      `Validate signature error: ${signer ?? "an invalid signature"} is signed by ${signer ?? "nobody"} but it is not contained of permission.`,
    );
  }
  if (payment.kind === "trx") {
    const refusal = validateTransfer(chain, payment);
    if (refusal !== undefined) return refused(txID, "CONTRACT_VALIDATE_ERROR", `Contract validate error : ${refusal}`);
  } else if (!chain.hasAccount(payment.from)) {
    return refused(
      txID,
      "CONTRACT_VALIDATE_ERROR",
      "Contract validate error : Validate TriggerSmartContract error, no OwnerAccount.",
    );
  }
  const json: Record<string, unknown> = {
    signature: signatures.map((signature) => signature.toLowerCase()),
    txID,
    raw_data: rawData,
    raw_data_hex: transactionIdentity(rawData).rawDataHex,
  };
  const tx: SignedTransaction = { txID, payment, json };
  chain.enqueue(tx);
  return ok(JSON.stringify({ result: true, txid: txID }));
}

/** The signer's hex address recovered from a 65-byte signature over the txID, or undefined. */
function recover(txID: string, signature: string): string | undefined {
  if (!/^(0x)?[0-9a-fA-F]{130}$/.test(signature)) return undefined;
  try {
    return utils.crypto.ecRecover(txID, signature).toLowerCase();
  } catch {
    return undefined;
  }
}

/** The node's Payment for the transaction's one contract, or why the contract is refused. */
function toPayment(context: WalletContext, rawData: z.infer<typeof signedSchema>["raw_data"]): Payment | string {
  const [contract, ...more] = rawData.contract;
  if (contract === undefined || more.length > 0) return "a transaction carries exactly one contract";
  const value = contract.parameter.value;
  const owner = typeof value.owner_address === "string" ? addressSchema.safeParse(value.owner_address) : undefined;
  if (!owner?.success) return "Invalid ownerAddress";
  if (contract.type === "TransferContract") {
    const to = typeof value.to_address === "string" ? addressSchema.safeParse(value.to_address) : undefined;
    if (!to?.success) return "Invalid toAddress!";
    const amount = sunSchema.safeParse(value.amount ?? 0);
    if (!amount.success) return "Amount must be greater than 0.";
    return { kind: "trx", from: owner.data, to: to.data, amount: amount.data };
  }
  if (contract.type === "TriggerSmartContract") {
    const target =
      typeof value.contract_address === "string" ? addressSchema.safeParse(value.contract_address) : undefined;
    if (!target?.success || target.data !== context.tokenHex) return "No contract or not a smart contract";
    const feeLimit = BigInt(rawData.fee_limit ?? 0);
    if (feeLimit < 0n || feeLimit > MAX_FEE_LIMIT) return `feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT}`;
    const call = typeof value.data === "string" ? decodeTransferCall(value.data) : undefined;
    const callValue = value.call_value;
    // Any other call to the token reverts on chain; this node only runs transfer.
    const revert = call === undefined || (callValue !== undefined && callValue !== 0);
    return {
      kind: "token",
      from: owner.data,
      contract: context.tokenHex,
      to: call?.toHex ?? owner.data,
      amount: call?.amount ?? 0n,
      revert,
      feeLimit,
    };
  }
  return `this node does not run ${contract.type}`;
}
