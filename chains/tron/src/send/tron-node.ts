import type { ChainId } from "@mp/core";
import { z } from "zod";
import { TronHttpClient } from "../http-api-client.ts";
import { verifyTronNode } from "../node-capabilities.ts";
import { TronApiError } from "../tron-api-error.ts";

/**
 * The java-tron full-node HTTP calls the Tron sender makes, with zod schemas for their answers.
 * java-tron leaves proto3 default values out of its JSON (a zero balance, `result: false`), so
 * most fields are optional; an unknown transaction or account is `{}`.
 */

const hash32 = z.string().regex(/^[0-9a-fA-F]{64}$/);
/** int64 sun: a number while it is a safe integer, else the digit string @mp/rpc's exact parser gives. */
const sun = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,19}$/)])
  .transform((value) => BigInt(value));
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const blockSchema = z.object({
  blockID: hash32,
  block_header: z.object({ raw_data: z.object({ number: count.default(0), timestamp: count.default(0) }) }),
});
const maybeBlockSchema = z.union([blockSchema, z.object({}).strict()]);
const accountSchema = z.object({ balance: sun.optional() });
const resourceSchema = z.object({ EnergyLimit: count.optional(), EnergyUsed: count.optional() });
const parametersSchema = z.object({
  chainParameter: z.array(z.object({ key: z.string(), value: z.number().optional() })),
});
const returnSchema = z.object({
  result: z.boolean().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
});
const unsignedSchema = z.object({
  txID: hash32,
  raw_data: z
    .object({
      ref_block_bytes: z.string().regex(/^[0-9a-fA-F]{4}$/),
      ref_block_hash: z.string().regex(/^[0-9a-fA-F]{16}$/),
      expiration: count,
      timestamp: count.optional(),
      fee_limit: count.optional(),
    })
    .passthrough(),
  raw_data_hex: z.string().regex(/^[0-9a-fA-F]+$/),
});
export type UnsignedTronTransaction = z.infer<typeof unsignedSchema>;
const extentionSchema = z.object({
  result: returnSchema.optional(),
  energy_used: count.optional(),
  constant_result: z.array(z.string()).optional(),
  transaction: z
    .object({ ret: z.array(z.object({ ret: z.string().optional() })).optional() })
    .passthrough()
    .optional(),
});
const broadcastSchema = returnSchema.extend({ txid: z.string().optional() });
const landedInfoSchema = z.object({
  id: hash32,
  blockNumber: count,
  fee: count.optional(),
  result: z.string().optional(),
  resMessage: z.string().optional(),
  receipt: z
    .object({ result: z.string().optional(), energy_fee: count.optional(), energy_usage_total: count.optional() })
    .optional(),
});
/** gettransactioninfobyid: the receipt of a transaction in a block, `{}` (null here) for any other. */
const infoSchema = z.union([
  landedInfoSchema,
  z
    .object({})
    .strict()
    .transform(() => null),
]);
export type TronTransactionInfo = z.infer<typeof landedInfoSchema>;

export interface HeadBlock {
  number: number;
  blockID: string;
  timestamp: number;
}

export interface ConstantCall {
  energyUsed: number;
  result: string;
  reverted: boolean;
}

/** What broadcasttransaction said: accepted, or java-tron's refusal code and its decoded message. */
export type BroadcastAnswer = { accepted: true } | { accepted: false; code: string; message: string };

/** java-tron writes Return.message as hex of its UTF-8 text. */
export const decodeHex = (hex: string | undefined): string =>
  hex !== undefined && /^([0-9a-fA-F]{2})*$/.test(hex) ? Buffer.from(hex, "hex").toString("utf8") : (hex ?? "");

export class TronNode {
  private readonly client: TronHttpClient;

  constructor(options: { url: string; setting: string; fetch?: typeof globalThis.fetch | undefined }) {
    this.client = new TronHttpClient(options);
  }

  /** The node keeps what the sender needs (transaction receipts): @mp/chain-tron's verifyTronNode. */
  verify(chain: ChainId): Promise<void> {
    return verifyTronNode(this.client, chain);
  }

  async head(): Promise<HeadBlock> {
    const block = await this.client.post("/wallet/getnowblock", {}, blockSchema);
    return {
      number: block.block_header.raw_data.number,
      blockID: block.blockID,
      timestamp: block.block_header.raw_data.timestamp,
    };
  }

  async blockId(num: number): Promise<string | null> {
    const block = await this.client.post("/wallet/getblockbynum", { num }, maybeBlockSchema);
    return "blockID" in block ? block.blockID.toLowerCase() : null;
  }

  /** TRX balance in sun (0 for an account the chain does not know). */
  async balance(addressHex: string): Promise<bigint> {
    const account = await this.client.post("/wallet/getaccount", { address: addressHex }, accountSchema);
    return account.balance ?? 0n;
  }

  /** Staked energy not used yet. */
  async freeEnergy(addressHex: string): Promise<bigint> {
    const resource = await this.client.post("/wallet/getaccountresource", { address: addressHex }, resourceSchema);
    return BigInt(Math.max(0, (resource.EnergyLimit ?? 0) - (resource.EnergyUsed ?? 0)));
  }

  /** Sun burnt per unit of energy (chain parameter getEnergyFee). */
  async energyPrice(): Promise<bigint> {
    const { chainParameter } = await this.client.post("/wallet/getchainparameters", {}, parametersSchema);
    const price = chainParameter.find((parameter) => parameter.key === "getEnergyFee")?.value;
    if (price === undefined || price <= 0) {
      throw new TronApiError("/wallet/getchainparameters", "no positive getEnergyFee parameter");
    }
    return BigInt(price);
  }

  /** Runs a call without a transaction (triggerconstantcontract): its energy and return value. */
  async constantCall(ownerHex: string, contractHex: string, data: string): Promise<ConstantCall> {
    const endpoint = "/wallet/triggerconstantcontract";
    const answer = await this.client.post(
      endpoint,
      { owner_address: ownerHex, contract_address: contractHex, data },
      extentionSchema,
    );
    if (answer.result?.result !== true) {
      throw new TronApiError(endpoint, `${answer.result?.code ?? "refused"}: ${decodeHex(answer.result?.message)}`);
    }
    return {
      energyUsed: answer.energy_used ?? 0,
      result: answer.constant_result?.[0] ?? "",
      reverted: answer.transaction?.ret?.[0]?.ret === "FAILED",
    };
  }

  /** An unsigned TransferContract built by the node (createtransaction). */
  createTransfer(ownerHex: string, toHex: string, amount: bigint): Promise<UnsignedTronTransaction> {
    return this.client.post(
      "/wallet/createtransaction",
      { owner_address: ownerHex, to_address: toHex, amount: Number(amount) },
      unsignedSchema,
    );
  }

  /** An unsigned TriggerSmartContract built by the node (triggersmartcontract). */
  async createCall(
    ownerHex: string,
    contractHex: string,
    data: string,
    feeLimit: bigint,
  ): Promise<UnsignedTronTransaction> {
    const endpoint = "/wallet/triggersmartcontract";
    const answer = await this.client.post(
      endpoint,
      { owner_address: ownerHex, contract_address: contractHex, data, fee_limit: Number(feeLimit), call_value: 0 },
      extentionSchema,
    );
    if (answer.result?.result !== true || answer.transaction === undefined) {
      throw new TronApiError(endpoint, `${answer.result?.code ?? "refused"}: ${decodeHex(answer.result?.message)}`);
    }
    const parsed = unsignedSchema.safeParse(answer.transaction);
    if (!parsed.success) throw new TronApiError(endpoint, "the answer holds no well-formed transaction");
    return parsed.data;
  }

  async broadcast(signed: unknown): Promise<BroadcastAnswer> {
    const answer = await this.client.post("/wallet/broadcasttransaction", signed, broadcastSchema);
    if (answer.result === true) return { accepted: true };
    return { accepted: false, code: answer.code ?? "OTHER_ERROR", message: decodeHex(answer.message) };
  }

  transactionInfo(txID: string): Promise<TronTransactionInfo | null> {
    return this.client.post("/wallet/gettransactioninfobyid", { value: txID }, infoSchema);
  }
}
