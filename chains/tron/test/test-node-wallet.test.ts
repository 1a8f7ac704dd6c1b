import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

/** The sending half of the Tron test node: building, broadcast validation, receipts, energy. */
let node: TronTestNode;
const owner = TronKey.fromLabel("wallet-test-owner");
const TRX = 1_000_000n;
let seq = 0;
const fresh = () => TronKey.fromLabel(`wallet-test-recipient:${++seq}`);

beforeAll(async () => {
  node = await startTronTestNode({ seed: "test-node-wallet-test" });
  node.transfer(owner.address, 100n * TRX);
  node.transferToken(owner.address, 1_000_000n);
  node.mine();
});
afterAll(async () => {
  await node.stop();
});
beforeEach(() => {
  node.hold(false);
  node.setEnergyPrice(100n);
});

type Json = Record<string, unknown>;
async function post(path: string, body: unknown): Promise<Json> {
  const response = await fetch(`${node.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  return (await response.json()) as Json;
}
const text = (answer: Json) => Buffer.from(String(answer.message), "hex").toString("utf8");

interface Unsigned {
  txID: string;
  raw_data: Json;
  raw_data_hex: string;
}
const transfer = async (to: TronKey, amount: bigint, from = owner) =>
  (await post("/wallet/createtransaction", {
    owner_address: from.addressHex,
    to_address: to.addressHex,
    amount: Number(amount),
  })) as unknown as Unsigned;
const signed = (tx: Unsigned, key = owner) => ({ ...tx, signature: [key.sign(tx.txID)] });

async function tokenCall(to: TronKey, amount: bigint, feeLimit: bigint): Promise<Unsigned> {
  const answer = await post("/wallet/triggersmartcontract", {
    owner_address: owner.addressHex,
    contract_address: node.tokens[0]?.address,
    function_selector: "transfer(address,uint256)",
    parameter: `${to.addressHex.slice(2).padStart(64, "0")}${amount.toString(16).padStart(64, "0")}`,
    fee_limit: Number(feeLimit),
    visible: false,
  });
  expect(answer.result).toEqual({ result: true });
  return answer.transaction as Unsigned;
}

describe("Tron test node: building and broadcasting", () => {
  it("builds a TransferContract from the head block (TaPoS, expiration +60 s) and lands it at the next block", async () => {
    const to = fresh();
    const tx = await transfer(to, 5n * TRX);
    const head = (await post("/wallet/getnowblock", {})) as { blockID: string; block_header: { raw_data: Json } };
    expect(tx.raw_data).toMatchObject({
      ref_block_hash: head.blockID.slice(16, 32),
      expiration: Number(head.block_header.raw_data.timestamp) + 60_000,
    });
    expect(await post("/wallet/broadcasttransaction", signed(tx))).toEqual({ result: true, txid: tx.txID });
    expect(await post("/wallet/gettransactionbyid", { value: tx.txID })).toEqual({});
    const [height] = node.mine();
    expect(await post("/wallet/gettransactionbyid", { value: tx.txID })).toMatchObject({
      txID: tx.txID,
      ret: [{ contractRet: "SUCCESS" }],
    });
    expect(await post("/wallet/gettransactioninfobyid", { value: tx.txID })).toMatchObject({
      id: tx.txID,
      blockNumber: height,
    });
    expect(node.balance(to.address)).toBe(5n * TRX);
    expect(await post("/wallet/getaccount", { address: to.addressHex })).toEqual({
      address: to.addressHex,
      balance: 5_000_000,
    });
  });

  it("refuses a duplicate, pending or landed: DUP_TRANSACTION_ERROR", async () => {
    const tx = signed(await transfer(fresh(), TRX));
    await post("/wallet/broadcasttransaction", tx);
    const pending = await post("/wallet/broadcasttransaction", tx);
    expect(pending).toMatchObject({ code: "DUP_TRANSACTION_ERROR", txid: tx.txID });
    expect(pending).not.toHaveProperty("result");
    node.mine();
    expect(await post("/wallet/broadcasttransaction", tx)).toMatchObject({ code: "DUP_TRANSACTION_ERROR" });
  });

  it("refuses a bad signature: another key, none, or a body changed after signing (SIGERROR)", async () => {
    const tx = await transfer(fresh(), TRX);
    const forged = await post("/wallet/broadcasttransaction", signed(tx, fresh()));
    expect(forged).toMatchObject({ code: "SIGERROR", txid: tx.txID });
    expect(text(forged)).toMatch(/^Validate signature error: /);
    expect(await post("/wallet/broadcasttransaction", { ...tx, signature: [] })).toMatchObject({ code: "SIGERROR" });
    const changed = structuredClone(signed(tx));
    const thief = fresh();
    const value = (changed.raw_data.contract as Array<{ parameter: { value: Json } }>)[0]?.parameter.value as Json;
    value.to_address = thief.addressHex;
    const answer = await post("/wallet/broadcasttransaction", changed);
    expect(answer).toMatchObject({ code: "SIGERROR" });
    // The txID comes from raw_data, never from the request.
    expect(answer.txid).not.toBe(tx.txID);
    node.mine();
    expect(node.balance(thief.address)).toBe(0n);
  });

  it("refuses an expired transaction and one whose reference block is not on the chain", async () => {
    const tx = signed(await transfer(fresh(), TRX));
    node.mine(20);
    const expired = await post("/wallet/broadcasttransaction", tx);
    expect(expired).toMatchObject({ code: "TRANSACTION_EXPIRATION_ERROR", txid: tx.txID });
    expect(text(expired)).toMatch(/^Transaction expired/);

    const other = await transfer(fresh(), TRX);
    const forked = { ...other, raw_data: { ...other.raw_data, ref_block_hash: "00".repeat(8) } };
    const tapos = await post("/wallet/broadcasttransaction", forked);
    expect(tapos).toMatchObject({ code: "TAPOS_ERROR" });
  });

  it("refuses what the owner cannot pay, counting its pending transactions (CONTRACT_VALIDATE_ERROR)", async () => {
    const poor = fresh();
    node.transfer(poor.address, 3n * TRX);
    node.mine();
    const built = await post("/wallet/createtransaction", {
      owner_address: poor.addressHex,
      to_address: owner.addressHex,
      amount: Number(4n * TRX),
    });
    expect(String(built.Error)).toContain("balance is not sufficient");
    const first = signed(await transfer(owner, 2n * TRX, poor), poor);
    const second = signed(await transfer(owner, 2n * TRX + 1n, poor), poor);
    expect(await post("/wallet/broadcasttransaction", first)).toMatchObject({ result: true });
    const refused = await post("/wallet/broadcasttransaction", second);
    expect(refused).toMatchObject({ code: "CONTRACT_VALIDATE_ERROR" });
    expect(text(refused)).toContain("balance is not sufficient");
  });

  it("holds broadcast transactions back on request and drops them once expired", async () => {
    const to = fresh();
    const tx = signed(await transfer(to, TRX));
    node.hold(true);
    expect(await post("/wallet/broadcasttransaction", tx)).toMatchObject({ result: true });
    node.mine(20);
    node.hold(false);
    node.mine(2);
    expect(await post("/wallet/gettransactionbyid", { value: tx.txID })).toEqual({});
    expect(node.balance(to.address)).toBe(0n);
  });
});

describe("Tron test node: energy", () => {
  it("estimates a TRC-20 transfer's energy and answers balanceOf without a transaction", async () => {
    const estimate = await post("/wallet/triggerconstantcontract", {
      owner_address: owner.addressHex,
      contract_address: node.tokens[0]?.address,
      function_selector: "transfer(address,uint256)",
      parameter: `${fresh().addressHex.slice(2).padStart(64, "0")}${1n.toString(16).padStart(64, "0")}`,
    });
    expect(estimate).toMatchObject({ result: { result: true }, energy_used: 14_650 });
    const balance = await post("/wallet/triggerconstantcontract", {
      owner_address: owner.addressHex,
      contract_address: node.tokens[0]?.address,
      data: `70a08231${owner.addressHex.slice(2).padStart(64, "0")}`,
    });
    expect(BigInt(`0x${(balance.constant_result as string[])[0]}`)).toBe(node.tokenBalance(owner.address));
    const params = (await post("/wallet/getchainparameters", {})) as { chainParameter: Json[] };
    expect(params.chainParameter).toContainEqual({ key: "getEnergyFee", value: 100 });
  });

  it("burns TRX for the energy a call lacks, within fee_limit; beyond it OUT_OF_ENERGY, as the real chain", async () => {
    const to = fresh();
    const enough = signed(await tokenCall(to, 10n, 14_650n * 100n));
    const trxBefore = node.balance(owner.address);
    expect(await post("/wallet/broadcasttransaction", enough)).toMatchObject({ result: true });
    node.mine();
    expect(await post("/wallet/gettransactioninfobyid", { value: enough.txID })).toMatchObject({
      fee: 1_465_000,
      receipt: { energy_fee: 1_465_000, energy_usage_total: 14_650, result: "SUCCESS" },
    });
    expect(node.balance(owner.address)).toBe(trxBefore - 1_465_000n);
    expect(node.tokenBalance(to.address)).toBe(10n);

    const short = signed(await tokenCall(to, 10n, 1_000_000n));
    await post("/wallet/broadcasttransaction", short);
    node.mine();
    const info = await post("/wallet/gettransactioninfobyid", { value: short.txID });
    expect(info).toMatchObject({
      fee: 1_000_000,
      result: "FAILED",
      receipt: { energy_fee: 1_000_000, energy_usage_total: 10_000, result: "OUT_OF_ENERGY" },
    });
    expect(text({ message: info.resMessage })).toMatch(/^Not enough energy/);
    expect(await post("/wallet/gettransactionbyid", { value: short.txID })).toMatchObject({
      ret: [{ contractRet: "OUT_OF_ENERGY" }],
    });
    expect(node.tokenBalance(to.address)).toBe(10n);
    expect(node.balance(owner.address)).toBe(trxBefore - 2_465_000n);

    node.stakeEnergy(owner.address, 20_000n);
    const staked = signed(await tokenCall(to, 1n, 1n));
    await post("/wallet/broadcasttransaction", staked);
    node.mine();
    expect(await post("/wallet/gettransactioninfobyid", { value: staked.txID })).toMatchObject({
      receipt: { energy_usage: 14_650, energy_usage_total: 14_650, result: "SUCCESS" },
    });
    expect(await post("/wallet/getaccountresource", { address: owner.addressHex })).toMatchObject({
      EnergyLimit: 20_000,
      EnergyUsed: 14_650,
    });
  });
});
