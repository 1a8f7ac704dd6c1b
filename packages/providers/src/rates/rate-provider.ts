/** A USD conversion rate for one asset, valid until `expiresAt`. */
export interface Rate {
  fromCurrency: string;
  toCurrency: "USD";
  /** Decimal string: USD per one whole unit of `fromCurrency`. */
  rate: string;
  expiresAt: Date;
}

/**
 * Market rates come from an outside provider. The sandbox provider is the default; a production
 * adapter is an HTTP client behind the same interface. A provider outage throws
 * ServiceUnavailableError, which the API answers as 503.
 */
export interface RateProvider {
  readonly name: string;
  listRates(): Promise<Rate[]>;
  rateFor(asset: string): Promise<Rate>;
}
