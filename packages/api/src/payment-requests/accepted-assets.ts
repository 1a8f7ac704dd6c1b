import { CHAIN_IDS, type ChainId, type ChainsConfig, NATIVE_ASSETS, ValidationError } from "@mp/core";
import { USD_CURRENCY } from "@mp/payment-requests";
import type { CreatePaymentRequestBody } from "./payment-request-schemas.ts";

/** An asset a payment request may accept: a configured chain's coin or token. */
export interface AcceptedAsset {
  chain: ChainId;
  asset: string;
  decimals: number;
  contractAddress: string | null;
}

/** Every asset of every configured chain, in the chains' order, each coin before its tokens. */
export function configuredAssets(chains: ChainsConfig): AcceptedAsset[] {
  return CHAIN_IDS.flatMap((chain) => {
    const config = chains[chain];
    if (!config) return [];
    const native = NATIVE_ASSETS[chain];
    return [
      { chain, asset: native.asset, decimals: native.decimals, contractAddress: null },
      ...config.tokens.map((t) => ({ chain, asset: t.asset, decimals: t.decimals, contractAddress: t.address })),
    ];
  });
}

/**
 * The assets a request accepts: those it names (each of a configured chain, named once; a request in
 * a crypto asset takes only that asset) or, by default, every configured one (only the request's
 * asset for a request in one). 400 naming the field when none is left or a name is wrong.
 */
export function acceptedAssets(
  chains: ChainsConfig,
  body: Pick<CreatePaymentRequestBody, "currency" | "accepted">,
): { assets: AcceptedAsset[]; named: boolean } {
  const all = configuredAssets(chains);
  const inCurrency = (a: { asset: string }) => body.currency === USD_CURRENCY.currency || a.asset === body.currency;
  if (!body.accepted) {
    const assets = all.filter(inCurrency);
    if (assets.length === 0)
      throw new ValidationError(`currency: no configured chain has ${body.currency}`, "currency");
    return { assets, named: false };
  }
  const seen = new Set<string>();
  const assets = body.accepted.map((wanted, i) => {
    const field = `accepted[${i}]`;
    const found = all.find((a) => a.chain === wanted.network && a.asset === wanted.asset);
    if (!found) {
      const known = all.filter((a) => a.chain === wanted.network).map((a) => a.asset);
      throw new ValidationError(
        known.length === 0
          ? `${field}.network: ${wanted.network} is not configured`
          : `${field}.asset: ${wanted.network} assets are ${known.join(", ")}`,
        field,
      );
    }
    if (!inCurrency(found))
      throw new ValidationError(`${field}.asset: a request in ${body.currency} is paid in it`, field);
    const key = `${found.chain}:${found.asset}`;
    if (seen.has(key))
      throw new ValidationError(`${field}: ${wanted.asset} on ${wanted.network} is named twice`, field);
    seen.add(key);
    return found;
  });
  return { assets, named: true };
}

/** USD in cents; a crypto asset at the fewest decimals it has on the accepted chains (exact on each). */
export function currencyDecimals(currency: string, assets: readonly AcceptedAsset[]): number {
  if (currency === USD_CURRENCY.currency) return USD_CURRENCY.decimals;
  return Math.min(...assets.map((a) => a.decimals));
}
