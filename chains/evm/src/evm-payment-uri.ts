import { type ChainConfig, type EvmChainId, isEvmChain, type PaymentTarget } from "@mp/core";
import { EVM_CHAIN_IDS } from "./evm-networks.ts";

/**
 * The EVM chain id a wallet must be on: the configured network's first id (mainnet, or the public
 * testnet the local sandbox's anvils use); a `regtest` chain is a local one started with the
 * mainnet id (the test suites' anvils), so it is named so.
 */
export function evmChainId(chain: EvmChainId, network: ChainConfig["network"]): number {
  const ids = EVM_CHAIN_IDS[chain];
  const id = network === "testnet" ? ids.testnet[0] : ids.mainnet[0];
  if (id === undefined) throw new Error(`no chain id for ${chain} on ${network}`);
  return id;
}

/**
 * EIP-681 with the chain id: a coin `ethereum:<address>@<chain id>?value=<wei>`, a token
 * `ethereum:<token>@<chain id>/transfer?address=<address>&uint256=<units>` (smallest units, exact).
 */
export function evmPaymentUri(target: PaymentTarget): string {
  if (!isEvmChain(target.chain)) throw new Error(`${target.chain} is no EVM chain`);
  const chainId = evmChainId(target.chain, target.network);
  if (target.contractAddress === null) {
    return `ethereum:${target.address}@${chainId}?value=${target.amountRaw}`;
  }
  return `ethereum:${target.contractAddress}@${chainId}/transfer?address=${target.address}&uint256=${target.amountRaw}`;
}
