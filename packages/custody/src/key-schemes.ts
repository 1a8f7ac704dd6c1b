import { AppError, CHAIN_IDS, type ChainFamily, type ChainId, chainFamily } from "@mp/core";
import type { KeyScheme } from "./key-scheme.ts";

/** The key schemes of every chain family, looked up by family or chain. */
export interface KeySchemes {
  readonly all: readonly KeyScheme[];
  of(family: ChainFamily): KeyScheme;
  ofChain(chain: ChainId): KeyScheme;
}

/**
 * Indexes the registry's schemes (services/payments/src/chain-families.ts); refuses a list that misses
 * the family of a known chain or names one twice, at start rather than at the first wallet of that chain.
 */
export function indexKeySchemes(schemes: readonly KeyScheme[]): KeySchemes {
  const byFamily = new Map<ChainFamily, KeyScheme>();
  for (const scheme of schemes) {
    if (byFamily.has(scheme.family)) {
      throw new AppError("internal_error", `two key schemes for the ${scheme.family} family`);
    }
    byFamily.set(scheme.family, scheme);
  }
  for (const chain of CHAIN_IDS) {
    if (!byFamily.has(chainFamily(chain))) {
      throw new AppError("internal_error", `no key scheme for the ${chainFamily(chain)} family of ${chain}`);
    }
  }
  const of = (family: ChainFamily): KeyScheme => {
    const scheme = byFamily.get(family);
    if (!scheme) throw new AppError("internal_error", `no key scheme for the ${family} family`);
    return scheme;
  };
  return Object.freeze({ all: [...byFamily.values()], of, ofChain: (chain: ChainId) => of(chainFamily(chain)) });
}
