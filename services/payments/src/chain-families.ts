import { bitcoinFamily } from "@mp/chain-bitcoin";
import { evmFamily } from "@mp/chain-evm";
import { solanaFamily } from "@mp/chain-solana";
import { tronFamily } from "@mp/chain-tron";
import { type ChainFamily, type ChainId, chainFamily, type PaymentTarget } from "@mp/core";
import type { BitcoinNetwork, KeyScheme } from "@mp/custody";
import type { ChainFamilyModule, SendCheck } from "@mp/treasury";

/**
 * The registry of chain families: the one list the service builds every chain from (reader,
 * sender, sweeper, holdings reader, faucet). Adding a family is its folder in chains/ and one line here.
 */
export const CHAIN_FAMILIES: readonly ChainFamilyModule[] = [evmFamily, bitcoinFamily, solanaFamily, tronFamily];

const BY_FAMILY = new Map<ChainFamily, ChainFamilyModule>(CHAIN_FAMILIES.map((module) => [module.family, module]));

/** The family record of a chain. */
export function familyOf(chain: ChainId): ChainFamilyModule {
  const module = BY_FAMILY.get(chainFamily(chain));
  if (!module) throw new Error(`no chain family registered for ${chain}`);
  return module;
}

/** Every family's key scheme: what custody derives and encodes each family's keys and addresses with. */
export const KEY_SCHEMES: readonly KeyScheme[] = CHAIN_FAMILIES.map((module) => module.keyScheme);

/** Whether `address` is one of `chain` a transfer can be sent to (`network`: the deployment's Bitcoin network). */
export function isChainAddress(chain: ChainId, address: string, network: BitcoinNetwork): boolean {
  return familyOf(chain).keyScheme.isAddress(address, network);
}

/** A payment request option's payment URI, written by its chain's family. */
export function paymentUriOf(target: PaymentTarget): string {
  return familyOf(target.chain).paymentUri(target);
}

/** What a send request on a chain must be, checked by its family before it is queued (requestSend). */
export function sendCheckOf(chain: ChainId): SendCheck {
  return familyOf(chain).sendCheck;
}
