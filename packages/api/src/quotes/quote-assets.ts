import { type ChainId, NATIVE_ASSETS, USD_DECIMALS, ValidationError } from "@mp/core";
import type { PricedAsset, SourceMethod } from "@mp/transfers";
import type { AppDeps } from "../deps.ts";
import type { CreateQuoteBody, UsBankAccountBody } from "./quote-schemas.ts";

/** USD as transfers hold it: micro-dollars like the ledger, moved in whole cents on bank rails. */
const USD = { asset: "USD", decimals: USD_DECIMALS, quantum: 10n ** BigInt(USD_DECIMALS - 2) } as const;
/** The rail a USD amount moves on: bank transfers in and out, or the merchant's ledger balance. */
export const BANK_RAIL = "ACH";
export const BALANCE_NETWORK = "LEDGER";

export interface QuoteSide extends Omit<PricedAsset, "usdRate"> {
  network: string;
}

export interface QuoteAssets {
  source: QuoteSide & { method: SourceMethod };
  destination: QuoteSide & {
    kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
    address: string | null;
    bankAccount: UsBankAccountBody | null;
  };
}

/** An asset of a configured chain (its native coin or a configured token), with its decimals. */
function chainAsset(deps: AppDeps, network: ChainId, asset: string, field: string): QuoteSide {
  const config = deps.chains[network];
  if (!config)
    throw new ValidationError(`${field}.network: ${network} is not configured for transfers`, `${field}.network`);
  const native = NATIVE_ASSETS[network];
  const decimals =
    native.asset === asset ? native.decimals : config.tokens.find((token) => token.asset === asset)?.decimals;
  if (decimals === undefined) {
    const known = [native.asset, ...config.tokens.map((t) => t.asset)].join(", ");
    throw new ValidationError(`${field}.asset: ${network} assets are ${known}`, `${field}.asset`);
  }
  return { asset, network, decimals, quantum: 1n };
}

/**
 * What a quote request moves, checked before anything is priced: the assets exist on configured
 * chains, a crypto destination is an address of its chain.
 */
export function resolveQuoteAssets(deps: AppDeps, body: CreateQuoteBody): QuoteAssets {
  const { source, destination } = body;
  let from: QuoteAssets["source"];
  if (source.method === "CRYPTO_DEPOSIT") {
    from = { method: source.method, ...chainAsset(deps, source.network, source.asset, "source") };
  } else if (source.method === "BANK_TRANSFER") from = { method: source.method, ...USD, network: BANK_RAIL };
  else from = { method: source.method, ...USD, network: BALANCE_NETWORK };

  let to: QuoteAssets["destination"];
  if (destination.type === "CRYPTO_ADDRESS") {
    const asset = chainAsset(deps, destination.network, destination.asset, "destination");
    const network = destination.network === "BITCOIN" ? deps.chains.BITCOIN?.network : "mainnet";
    if (!deps.isChainAddress(destination.network, destination.address, network ?? "mainnet")) {
      throw new ValidationError(`destination.address: not a ${destination.network} address`, "destination.address");
    }
    to = { ...asset, kind: "CRYPTO_ADDRESS", address: destination.address, bankAccount: null };
  } else {
    if (from.network === BANK_RAIL) {
      throw new ValidationError("destination: a bank-funded transfer pays out in crypto", "destination.type");
    }
    to = { ...USD, network: BANK_RAIL, kind: "US_BANK_ACCOUNT", address: null, bankAccount: destination };
  }
  return { source: from, destination: to };
}
