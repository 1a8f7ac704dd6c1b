import { EVM_CHAIN_IDS } from "@mp/chain-evm";
import { type ChainConfig, type ChainId, chainFamily, type EvmChainId, unitsToDecimal } from "@mp/core";

/** What a payer's wallet needs to pay one option: where, how much, of which asset on which chain. */
export interface PaymentTarget {
  chain: ChainId;
  /** The chain's configured network: an EVM URI names the chain id of that network. */
  network: ChainConfig["network"];
  address: string;
  /** The token's contract (EVM, Tron) or mint (Solana); null for the chain's native coin. */
  contractAddress: string | null;
  decimals: number;
  amountRaw: bigint;
}

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
 * The option's payment URI, the form each chain's wallets read from a QR code:
 * - Bitcoin, BIP-21: `bitcoin:<address>?amount=<BTC>`;
 * - EVM, EIP-681 with the chain id: a coin `ethereum:<address>@<chain id>?value=<wei>`, a token
 *   `ethereum:<token>@<chain id>/transfer?address=<address>&uint256=<units>`;
 * - Solana Pay (transfer request): `solana:<address>?amount=<SOL or token>` (`&spl-token=<mint>`);
 * - Tron, the address URI wallets read: `tron:<address>?amount=<TRX or token>` (`&token=<contract>`).
 * Amounts in whole units are plain decimals, never rounded (the exact amount due).
 */
export function paymentUri(target: PaymentTarget): string {
  const whole = unitsToDecimal(target.amountRaw, target.decimals, 0);
  const family = chainFamily(target.chain);
  if (family === "bitcoin") return `bitcoin:${target.address}?amount=${whole}`;
  if (family === "evm") {
    const chainId = evmChainId(target.chain as EvmChainId, target.network);
    if (target.contractAddress === null) {
      return `ethereum:${target.address}@${chainId}?value=${target.amountRaw}`;
    }
    return `ethereum:${target.contractAddress}@${chainId}/transfer?address=${target.address}&uint256=${target.amountRaw}`;
  }
  if (family === "solana") {
    const token = target.contractAddress === null ? "" : `&spl-token=${target.contractAddress}`;
    return `solana:${target.address}?amount=${whole}${token}`;
  }
  const token = target.contractAddress === null ? "" : `&token=${target.contractAddress}`;
  return `tron:${target.address}?amount=${whole}${token}`;
}
