import { createSandboxRateProvider, type RateProvider } from "@mp/providers";
import { describe, expect, it } from "vitest";
import { expectLedgerOk } from "./indexer-fixtures.ts";
import { useRatedChain } from "./rated-chain.ts";

/**
 * A configured token the rate provider does not quote (EURC here): its deposits confirm on chain
 * but wait, PENDING and visible as awaiting_rate, uncredited, until a rate exists; they never hold
 * back the other deposits and never make GET /v1/balance fail. Real anvil, tokens and adapter; the
 * rate provider is the sandbox one, with a EURC rate the test can publish.
 */
describe("deposits of an asset without a USD rate", () => {
  let eurcRate: string | undefined;
  const tokens = [
    { name: "USD Coin", symbol: "USDC" },
    { name: "Euro Coin", symbol: "EURC" },
  ];
  const chain = useRatedChain(tokens, (): RateProvider => {
    const sandbox = createSandboxRateProvider();
    return {
      name: "sandbox with a EURC rate once published",
      listRates: () => sandbox.listRates(),
      async rateFor(asset) {
        if (asset === "EURC" && eurcRate !== undefined) {
          return {
            fromCurrency: asset,
            toCurrency: "USD",
            rate: eurcRate,
            expiresAt: new Date(Date.now() + 60_000),
            source: "test",
          };
        }
        return sandbox.rateFor(asset);
      },
    };
  });

  it("waits visibly for a rate, credits the others meanwhile, and credits it at the first rate", async () => {
    const { api } = chain;
    const { merchant, address } = await chain.merchantWithWallet("42");

    const eurcTx = await chain.pay("EURC", address, 10_000_000n);
    const usdcTx = await chain.pay("USDC", address, 5_000_000n);
    let deposits = await chain.settle(merchant);
    expect(deposits.get(usdcTx)).toMatchObject({ status: "CONFIRMED", awaiting_rate: false, amount_usd: "5.000000" });
    expect(deposits.get(eurcTx)).toMatchObject({
      status: "PENDING",
      awaiting_rate: true,
      amount: "10.000000",
      amount_usd: null,
    });
    expect(await chain.awaitingRate("EURC")).toBe(1);

    // The balance answers; the EURC deposit, which cannot be valued, is in neither figure.
    let balance = await api.call(merchant.apiKey, "/v1/balance");
    expect(balance.status).toBe(200);
    const netUsdc = (deposits.get(usdcTx) as { net_amount_usd: string }).net_amount_usd;
    expect(balance.body.data).toMatchObject({ available: netUsdc, pending: "0.000000" });

    // More iterations change nothing until there is a rate.
    await chain.expectStillAwaitingRate(merchant, eurcTx);

    eurcRate = "1.08";
    deposits = await chain.expectCreditedAtRate(merchant, eurcTx, "EURC", {
      usd_rate: "1.08",
      amount_usd: "10.800000",
    });
    balance = await api.call(merchant.apiKey, "/v1/balance");
    expect(balance.status).toBe(200);
    const net = [usdcTx, eurcTx].map((tx) => (deposits.get(tx) as { net_amount_usd: string }).net_amount_usd);
    const micros = (usd: string) => BigInt(usd.replace(".", ""));
    expect(micros(balance.body.data.available)).toBe(net.map(micros).reduce((a, b) => a + b));
    await expectLedgerOk(api.db);
  });
});
