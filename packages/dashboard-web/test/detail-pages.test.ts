import { describe, expect, it } from "vitest";
import type { DepositResource as Deposit } from "../app/answers.ts";
import { searchOf } from "../app/components/deposit-search.ts";
import { explorerOf } from "../app/components/explorers.ts";
import { depositState, transferState } from "../app/components/states.ts";

const TX = "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060";

describe("explorerOf", () => {
  it("links a transaction to its chain's explorer on mainnet and on the public testnet", () => {
    expect(explorerOf("ETHEREUM", "mainnet", TX)).toEqual({
      url: `https://etherscan.io/tx/${TX}`,
      name: "etherscan.io",
    });
    expect(explorerOf("BASE", "testnet", TX).url).toBe(`https://sepolia.basescan.org/tx/${TX}`);
    expect(explorerOf("SOLANA", "testnet", "5abc").url).toBe("https://explorer.solana.com/tx/5abc?cluster=devnet");
    expect(explorerOf("TRON", "mainnet", "ab12").url).toBe("https://tronscan.org/#/transaction/ab12");
    expect(explorerOf("BITCOIN", "testnet", "ff00").url).toBe("https://mempool.space/testnet4/tx/ff00");
  });

  it("gives no link for a local node or an unconfigured chain, and says why", () => {
    expect(explorerOf("BASE", "regtest", TX)).toEqual({ url: undefined, why: "local network: no public explorer" });
    expect(explorerOf("BITCOIN", undefined, TX)).toEqual({
      url: undefined,
      why: "BITCOIN is not configured in this deployment",
    });
  });

  it("has a mainnet and a testnet explorer for every chain", () => {
    for (const chain of [
      "ETHEREUM",
      "BASE",
      "ARBITRUM",
      "OPTIMISM",
      "POLYGON",
      "BSC",
      "CELO",
      "SOLANA",
      "BITCOIN",
      "TRON",
    ]) {
      for (const network of ["mainnet", "testnet"] as const)
        expect(explorerOf(chain, network, "x").url, chain).toBeTruthy();
    }
  });
});

describe("states", () => {
  it("names transfer states for people, one family per outcome", () => {
    expect(transferState("AWAITING_MERCHANT_FUNDING")).toEqual({ label: "Awaiting funding", family: "progress" });
    expect(transferState("COMPLETED").family).toBe("done");
    expect(transferState("FAILED").family).toBe("failed");
    expect(transferState("CANCELED").family).toBe("canceled");
  });

  it("never shows a held or returned deposit as plainly confirmed", () => {
    const confirmed = { status: "CONFIRMED", awaiting_rate: false, hold_status: null } as unknown as Deposit;
    expect(depositState(confirmed)).toEqual({ label: "Confirmed", family: "done" });
    expect(depositState({ ...confirmed, hold_status: "HELD" })).toEqual({ label: "Held", family: "held" });
    expect(depositState({ ...confirmed, hold_status: "RETURNED" }).family).toBe("canceled");
    expect(depositState({ ...confirmed, status: "PENDING", awaiting_rate: true }).label).toBe("Awaiting a USD rate");
  });
});

describe("searchOf", () => {
  it("reads the deposits search box as an amount, a transaction hash or an address", () => {
    expect(searchOf(" 25.5 ")).toEqual({ amount: "25.5" });
    expect(searchOf(TX)).toEqual({ tx_hash: TX });
    expect(searchOf(TX.slice(2))).toEqual({ tx_hash: TX.slice(2) });
    expect(searchOf("0x00000000000000000000000000000000000000a1")).toEqual({
      address: "0x00000000000000000000000000000000000000a1",
    });
    expect(searchOf("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")).toEqual({
      address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    });
    expect(searchOf("  ")).toEqual({});
  });
});
