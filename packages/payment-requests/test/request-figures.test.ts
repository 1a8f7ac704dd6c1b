import { describe, expect, it } from "vitest";
import { type FigurePayment, requestFigures } from "../src/request-figures.ts";

const T0 = new Date("2026-12-01T10:00:00Z");
const EXPIRES = new Date("2026-12-01T11:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
// 25.00 USD: 25 USDC on BASE, 38462 sat of BTC.
const OPTIONS = [
  { chain: "BASE", asset: "USDC", amountDue: 25_000_000n },
  { chain: "BITCOIN", asset: "BTC", amountDue: 38_462n },
];
const pay = (over: Partial<FigurePayment>): FigurePayment => ({
  chain: "BASE",
  asset: "USDC",
  amountRaw: 25_000_000n,
  status: "CONFIRMED",
  held: false,
  seenAt: at(1),
  ...over,
});
const figures = (payments: FigurePayment[], now = at(5), canceledAt: Date | null = null) =>
  requestFigures({ amount: 2500n, expiresAt: EXPIRES, canceledAt, options: OPTIONS, payments, now });

describe("a payment request's figures", () => {
  it("open with nothing, all of it missing in every option", () => {
    const f = figures([]);
    expect(f.status).toBe("open");
    expect(f.amountMissing).toBe(2500n);
    expect(f.optionMissing.get("BASE:USDC")).toBe(25_000_000n);
    expect(f.optionMissing.get("BITCOIN:BTC")).toBe(38_462n);
  });

  it("processing while seen, paid when confirmed exactly, overpaid beyond it with the excess", () => {
    expect(figures([pay({ status: "PENDING" })])).toMatchObject({ status: "processing", amountPending: 2500n });
    expect(figures([pay({})])).toMatchObject({ status: "paid", amountPaid: 2500n, amountMissing: 0n });
    expect(figures([pay({ amountRaw: 26_000_000n })])).toMatchObject({ status: "overpaid", amountExcess: 100n });
  });

  it("underpaid with what is missing in each asset; a top-up in another asset completes it", () => {
    const short = figures([pay({ amountRaw: 10_000_000n })]);
    expect(short).toMatchObject({ status: "underpaid", amountPaid: 1000n, amountMissing: 1500n });
    expect(short.optionMissing.get("BASE:USDC")).toBe(15_000_000n);
    // 3/5 of 38462 sat, rounded up.
    expect(short.optionMissing.get("BITCOIN:BTC")).toBe(23_078n);
    const topped = figures([
      pay({ amountRaw: 10_000_000n }),
      pay({ chain: "BITCOIN", asset: "BTC", amountRaw: 23_078n }),
    ]);
    // A hair over (the BTC missing was rounded up to the satoshi), less than a cent: paid.
    expect(topped).toMatchObject({ status: "paid", amountExcess: 0n });
    const exact = requestFigures({
      amount: 2500n,
      expiresAt: EXPIRES,
      canceledAt: null,
      options: [OPTIONS[0] as (typeof OPTIONS)[0], { chain: "BITCOIN", asset: "BTC", amountDue: 50_000n }],
      payments: [pay({ amountRaw: 10_000_000n }), pay({ chain: "BITCOIN", asset: "BTC", amountRaw: 30_000n })],
      now: at(5),
    });
    expect(exact).toMatchObject({ status: "paid", amountPaid: 2500n, amountExcess: 0n });
  });

  it("a reversed payment counts for nothing: the request goes back", () => {
    expect(figures([pay({ status: "REVERSED" })]).status).toBe("open");
    expect(figures([pay({ status: "REVERSED" })], at(61)).status).toBe("expired");
  });

  it("late money (first seen after expiry or cancel) and other assets are flagged, not counted", () => {
    const late = figures([pay({ seenAt: at(61) })], at(62));
    expect(late.status).toBe("expired");
    expect(late.flags).toEqual(["late"]);
    const other = figures([pay({ asset: "ETH", amountRaw: 10n ** 16n })]);
    expect(other).toMatchObject({ status: "open", flags: ["not_accepted"] });
    const canceled = figures([pay({ seenAt: at(10) })], at(11), at(9));
    expect(canceled).toMatchObject({ status: "canceled", flags: ["late"] });
    expect(figures([pay({ held: true })])).toMatchObject({ status: "open", flags: ["held"] });
  });

  it("a payment seen before expiry and confirmed after it still pays", () => {
    expect(figures([pay({ status: "PENDING", seenAt: at(59) })], at(61)).status).toBe("processing");
    expect(figures([pay({ seenAt: at(59) })], at(62)).status).toBe("paid");
    expect(figures([pay({ amountRaw: 1n, seenAt: at(59) })], at(62)).status).toBe("expired");
  });
});
