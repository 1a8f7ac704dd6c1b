import { readFileSync } from "node:fs";
import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { parseJsonExact } from "@mp/rpc";
import {
  coreDouble,
  descriptorChecksum,
  difficultyOf,
  opcodeName,
  scriptToAsm,
  transactionJson,
} from "@mp/test-nodes/bitcoin";
import { networks, Transaction } from "bitcoinjs-lib";
import { describe, expect, it } from "vitest";

/**
 * The Bitcoin test node must answer in Bitcoin Core's exact JSON: its renderer is checked against
 * the recorded real responses (fixtures/SOURCE.md) by re-rendering their raw transactions.
 */

const read = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

type Json = Record<string, unknown>;
const txsOf = (blockText: string) => (parseJsonExact(blockText) as { tx: Json[] }).tx;

describe("test node transaction JSON equals Bitcoin Core's", () => {
  it("regtest block 406: coinbase and a wallet send, byte-exact literals (amounts, fee)", () => {
    for (const recorded of txsOf(read("regtest-block-406.getblock-verbosity2.json"))) {
      const tx = Transaction.fromHex(String(recorded.hex));
      const fee = recorded.fee === undefined ? undefined : btcToSatoshis(String(recorded.fee));
      const rendered = parseJsonExact(transactionJson(tx, networks.regtest, fee ?? undefined));
      expect(rendered).toEqual(recorded);
    }
  });

  it("mainnet runestone transaction: OP_RETURN asm with small pushes as numbers, desc checksums", () => {
    const recorded = parseJsonExact(read("mainnet-tx-7dae6489.decoderawtransaction.json")) as Json;
    const tx = Transaction.fromHex(read("mainnet-tx-7dae6489.getrawtransaction.hex").trim());
    const rendered = parseJsonExact(transactionJson(tx, networks.bitcoin)) as Json;
    delete rendered.hex;
    expect(rendered).toEqual(recorded);
  });

  it("mainnet block 170 (pre-descriptor Core): scriptSig signatures shown with [ALL], P2PK outputs", () => {
    for (const recorded of txsOf(read("mainnet-block-170.getblock-verbosity2.json"))) {
      const tx = Transaction.fromHex(String(recorded.hex));
      const rendered = parseJsonExact(transactionJson(tx, networks.bitcoin)) as Json & { vout: Json[] };
      // Core of that recording predates `desc`; everything else must match.
      for (const output of rendered.vout) delete (output.scriptPubKey as Json).desc;
      expect(rendered).toEqual(recorded);
    }
  });

  it("mainnet block 800,000 transaction: same fields as recorded", () => {
    const recorded = parseJsonExact(read("mainnet-block-800000.tx-b2088e44.json")) as Json;
    const tx = Transaction.fromHex(String(recorded.hex));
    const rendered = parseJsonExact(transactionJson(tx, networks.bitcoin, 559n)) as Json;
    // The recording was re-serialised with floats in exponent form: compare amounts as satoshis.
    const amounts = (json: Json) => ({
      fee: btcToSatoshis(String(json.fee)),
      values: (json.vout as Json[]).map((output) => btcToSatoshis(String(output.value))),
    });
    expect(amounts(rendered)).toEqual(amounts(recorded));
    for (const key of ["txid", "hash", "version", "size", "vsize", "weight", "locktime", "vin", "hex"]) {
      expect(rendered[key]).toEqual(recorded[key]);
    }
    expect((rendered.vout as Json[])[0]?.scriptPubKey).toEqual((recorded.vout as Json[])[0]?.scriptPubKey);
  });
});

describe("Core formatting helpers", () => {
  it("descriptor checksums match Core's", () => {
    expect(descriptorChecksum("addr(bcrt1q7n36a807k8fjwklngd0z2zgvu8r4c0vvttaxph)")).toBe("5xn87zzk");
    expect(descriptorChecksum("rawtr(72703770465a5b7786b0eac9934107785eff368c46a5954e775c08f8966df9be)")).toBe(
      "a4l8g0vq",
    );
  });

  it("names opcodes as Core's GetOpName", () => {
    expect(opcodeName(0x00)).toBe("0");
    expect(opcodeName(0x5d)).toBe("13");
    expect(opcodeName(0x61)).toBe("OP_NOP");
    expect(opcodeName(0xac)).toBe("OP_CHECKSIG");
    expect(opcodeName(0xb1)).toBe("OP_CHECKLOCKTIMEVERIFY");
    expect(opcodeName(0xba)).toBe("OP_CHECKSIGADD");
    expect(opcodeName(0xbb)).toBe("OP_UNKNOWN");
    expect(scriptToAsm(Uint8Array.from([0x6a, 0x4c]))).toBe("OP_RETURN [error]");
  });

  it("writes difficulty like UniValue (%.16g)", () => {
    expect(coreDouble(difficultyOf(0x207fffff)).literal).toBe("4.656542373906925e-10");
    expect(coreDouble(difficultyOf(0x1d00ffff)).literal).toBe("1");
    expect(coreDouble(difficultyOf(0x17021a42)).literal).toBe("133869853540305.4");
  });
});
