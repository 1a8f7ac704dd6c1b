/** A USD conversion rate for one asset, valid until `expiresAt`. */
export interface Rate {
  fromCurrency: string;
  toCurrency: "USD";
  /** Decimal string: USD per one whole unit of `fromCurrency`. */
  rate: string;
  expiresAt: Date;
  /**
   * Where the rate came from, for GET /v1/rates and audit: `chainlink:<feed address>`,
   * `kraken:<pair>`, `median(<source>,<source>)`, `sandbox` for the sandbox's fixed rates.
   */
  source: string;
}

/**
 * Market rates come from an outside provider. The sandbox provider is the default; the production
 * ones read Chainlink feeds, the Kraken ticker, or both combined. A rate that cannot be had (outage,
 * stale or refused answer) throws RateUnavailableError, a ServiceUnavailableError: the API answers
 * 503 and a deposit waits for a fresh rate instead of being credited at a wrong one.
 */
export interface RateProvider {
  readonly name: string;
  listRates(): Promise<Rate[]>;
  rateFor(asset: string): Promise<Rate>;
}
