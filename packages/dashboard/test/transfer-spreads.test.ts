import { describe, expect, it } from "vitest";
import { spreadOf } from "../src/transfer-spreads.ts";

const row = {
  transfer_id: "t",
  spread_bps: 50,
  source_amount: "40000000",
  fee_amount: "0",
  source_decimals: 6,
  source_usd_rate: "1",
  destination_amount: "39800000",
  destination_decimals: 6,
  destination_asset: "USDC",
  destination_usd_rate: "1",
};

describe("spreadOf", () => {
  it("is what the market rate would have paid less what the payee gets (issue 32: 40.00 became 39.80)", () => {
    expect(spreadOf(row)).toBe("0.2");
  });

  it("counts the fee out first and converts across decimals and rates", () => {
    // 1 ETH (18 decimals) at $3,000, fee 0.01 ETH, to USDC at $1 with 100 bps: 2,970 at market, 2,940.30 paid.
    expect(
      spreadOf({
        ...row,
        source_amount: "1000000000000000000",
        fee_amount: "10000000000000000",
        source_decimals: 18,
        source_usd_rate: "3000.00",
        destination_amount: "2940300000",
        destination_usd_rate: "1.0000",
      }),
    ).toBe("29.7");
  });

  it("is never negative", () => {
    expect(spreadOf({ ...row, destination_amount: "40000001" })).toBe("0");
  });
});
