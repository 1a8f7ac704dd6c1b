import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseJsonExact } from "@mp/rpc";
import { utils } from "tronweb";
import { describe, expect, it } from "vitest";
import {
  type ApiTransactionInfo,
  base58ToHex,
  blockSchema,
  evmHexToBase58,
  extractBlockTransfers,
  hexToBase58,
  isTronAddress,
  resolveTronAssets,
  TRC20_TRANSFER_TOPIC,
  TronApiError,
  topicToBase58,
  transactionInfoListSchema,
} from "../src/index.ts";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));

const docsBlock = blockSchema.parse(fixture("getblockbynum-66987565.nile.tron-docs.json"));
const mainnetTx = fixture("transaction-47086db3.mainnet.trongrid.json") as {
  txID: string;
  raw_data_hex: string;
  raw_data: { contract: [{ parameter: { value: { owner_address: string; to_address: string } } }] };
};
const assets = resolveTronAssets({ network: "mainnet", tokens: [] });

describe("Tron addresses", () => {
  it("converts Tether's published USDT contract both ways", () => {
    expect(hexToBase58("41a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toBe("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t");
    expect(base58ToHex("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe("41a614f803b6fd780986a42c78ec9c7f77e6ded13c");
  });

  it("agrees with tronweb on every hex address in the fixtures", () => {
    const value = mainnetTx.raw_data.contract[0].parameter.value;
    for (const hex of [
      docsBlock.block_header.raw_data.witness_address ?? "",
      value.owner_address,
      value.to_address,
      "419ff8fc48fb114ccd5bbdc24a86f0c73082f08825",
      "41dd791d6b49e190062d650e6a23c575510d35f2f9",
    ]) {
      const expected = utils.crypto.getBase58CheckAddress([...Buffer.from(hex, "hex")]);
      expect(hexToBase58(hex)).toBe(expected);
      expect(base58ToHex(expected)).toBe(hex);
    }
  });

  it("reads a log's 20-byte address and an indexed address topic (docs' Nile contract call)", () => {
    const info = transactionInfoListSchema.parse([fixture("gettransactioninfobyid-01b4cde4.nile.tron-docs.json")])[0];
    const body = fixture("gettransactionbyid-01b4cde4.nile.tron-docs.json") as {
      raw_data: { contract: [{ parameter: { value: { owner_address: string; contract_address: string } } }] };
    };
    const call = body.raw_data.contract[0].parameter.value;
    const log = info?.log?.[0];
    // The log names the contract without 0x41; topic 1 is the caller, padded to 32 bytes.
    expect(evmHexToBase58(log?.address ?? "")).toBe(hexToBase58(call.contract_address));
    expect(topicToBase58(log?.topics?.[1] ?? "")).toBe(hexToBase58(call.owner_address));
    // A word whose top 12 bytes are not zero is no address.
    expect(topicToBase58(`${"1".repeat(24)}${"0".repeat(40)}`)).toBeUndefined();
  });

  it("refuses what is not a Tron address", () => {
    expect(isTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(true);
    expect(isTronAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u")).toBe(false); // checksum
    expect(isTronAddress("1BoatSLRHtKNngkdXEeobR76b53LETtpyT")).toBe(false); // Bitcoin (0x00 prefix)
    expect(() => hexToBase58("a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toThrow(RangeError);
  });
});

describe("Tron API answers from the public docs", () => {
  it("parses the getblockbynum example: header, and no transactions key means none", () => {
    expect(docsBlock.blockID.slice(0, 16)).toBe((66987565).toString(16).padStart(16, "0"));
    expect(docsBlock.block_header.raw_data.number).toBe(66987565);
    expect(docsBlock.block_header.raw_data.parentHash).toBe(
      "0000000003fe262c85cd6b02033f4c3e5c1efa35de256a17bd906dc61fb1aeed",
    );
    expect(docsBlock.transactions).toBeUndefined();
  });

  it("parses the gettransactioninfobyblocknum example, and `{}` (num <= 0) as no infos", () => {
    const infos = transactionInfoListSchema.parse(fixture("gettransactioninfobyblocknum-66987565.nile.tron-docs.json"));
    expect(infos.map((info) => info.id)).toEqual([
      "ff44a2823a870c12f12a4ca6e7647650356bc2bb5e02c5855312cf2db4c950c1",
      "0419405287081aa44f4d78725e6fabac8d14e71abf9e28825ad4f4e61a5bccb7",
    ]);
    expect(infos[0]?.receipt?.result).toBeUndefined(); // plain transfers have no receipt.result
    expect(transactionInfoListSchema.parse({})).toEqual([]);
    expect(transactionInfoListSchema.safeParse({ Error: "x" }).success).toBe(false);
  });

  it("refuses a block whose infos describe other transactions (the docs' pair: 0 shown vs 2 infos)", () => {
    const infos = transactionInfoListSchema.parse(fixture("gettransactioninfobyblocknum-66987565.nile.tron-docs.json"));
    const where = { height: 66987565, blockHash: docsBlock.blockID };
    expect(() => extractBlockTransfers(docsBlock, infos, where, assets, new Set())).toThrow(TronApiError);
  });

  it("the mainnet transfer's txID is sha256 of raw_data_hex, and it reads as a TRX deposit", () => {
    expect(createHash("sha256").update(Buffer.from(mainnetTx.raw_data_hex, "hex")).digest("hex")).toBe(mainnetTx.txID);
    // The recorded transaction placed in a block (header from the docs, renumbered) with its info.
    const block = blockSchema.parse({
      blockID: `${(62258698).toString(16).padStart(16, "0")}${"ab".repeat(24)}`,
      block_header: { raw_data: { ...docsBlock.block_header.raw_data, number: 62258698 } },
      transactions: [mainnetTx],
    });
    const infos: ApiTransactionInfo[] = [{ id: mainnetTx.txID, blockNumber: 62258698, receipt: {} }];
    const to = hexToBase58("4105cc125604448afeb6867eb688efb7e80411d57a");
    const where = { height: 62258698, blockHash: block.blockID };
    expect(extractBlockTransfers(block, infos, where, assets, new Set([to]))).toEqual([
      {
        txHash: mainnetTx.txID,
        position: "native",
        blockHeight: 62258698,
        blockHash: block.blockID,
        from: hexToBase58("419b3281a60ab7a44f351ef2896c653f134972ad22"),
        to,
        asset: "TRX",
        contractAddress: null,
        amountRaw: 5n,
        decimals: 6,
      },
    ]);
    expect(extractBlockTransfers(block, infos, where, assets, new Set(["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"]))).toEqual(
      [],
    );
    // The same transaction with a failed result is no deposit.
    const failed = blockSchema.parse({ ...block, transactions: [{ ...mainnetTx, ret: [{ contractRet: "REVERT" }] }] });
    expect(extractBlockTransfers(failed, infos, where, assets, new Set([to]))).toEqual([]);
  });

  it("keeps every digit of an amount beyond 2^53 sun", () => {
    const text = JSON.stringify(mainnetTx).replace('"amount":5', '"amount":90071992547409931');
    const block = blockSchema.parse({
      blockID: `${(62258698).toString(16).padStart(16, "0")}${"ab".repeat(24)}`,
      block_header: { raw_data: { number: 62258698, parentHash: "00".repeat(32) } },
      transactions: [parseJsonExact(text)],
    });
    const to = hexToBase58("4105cc125604448afeb6867eb688efb7e80411d57a");
    const [deposit] = extractBlockTransfers(
      block,
      [{ id: mainnetTx.txID }],
      { height: 62258698, blockHash: block.blockID },
      assets,
      new Set([to]),
    );
    expect(deposit?.amountRaw).toBe(90071992547409931n);
  });

  it("reads a Transfer log only when the call succeeded, even if a failed result lists logs", () => {
    const usdtLog = (to: string) => ({
      address: "a614f803b6fd780986a42c78ec9c7f77e6ded13c",
      topics: [
        TRC20_TRANSFER_TOPIC,
        `${"0".repeat(24)}dd791d6b49e190062d650e6a23c575510d35f2f9`,
        `${"0".repeat(24)}${to}`,
      ],
      data: (1_500_000).toString(16).padStart(64, "0"),
    });
    const to = "05cc125604448afeb6867eb688efb7e80411d57a";
    const call = { ...mainnetTx, raw_data: { contract: [{ type: "TriggerSmartContract", parameter: { value: {} } }] } };
    const block = blockSchema.parse({
      blockID: `${(1).toString(16).padStart(16, "0")}${"cd".repeat(24)}`,
      block_header: { raw_data: { number: 1, parentHash: "00".repeat(32) } },
      transactions: [call],
    });
    const where = { height: 1, blockHash: block.blockID };
    const watch = new Set([evmHexToBase58(to)]);
    const info = (result: string): ApiTransactionInfo[] => [
      { id: mainnetTx.txID, receipt: { result }, log: [usdtLog("11".repeat(20)), usdtLog(to)] },
    ];
    expect(extractBlockTransfers(block, info("SUCCESS"), where, assets, watch)).toMatchObject([
      {
        position: "log:1",
        asset: "USDT",
        amountRaw: 1_500_000n,
        contractAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      },
    ]);
    expect(extractBlockTransfers(block, info("REVERT"), where, assets, watch)).toEqual([]);
    expect(extractBlockTransfers(block, info("OUT_OF_ENERGY"), where, assets, watch)).toEqual([]);
  });
});
