/**
 * The deployment's Bitcoin network. Custody takes it because Bitcoin's coin type and address
 * encoding depend on it (families with one network ignore it), and because it is stored:
 * custody_accounts records the coin type its Bitcoin xpub was derived for (migrations/0100).
 */
export type BitcoinNetwork = "mainnet" | "testnet" | "regtest";

/** Bitcoin's SLIP-44 coin type: 0 on mainnet, 1 (testnet's) also on regtest, as wallets and Core do. */
export function bitcoinCoinType(network: BitcoinNetwork): number {
  return network === "mainnet" ? 0 : 1;
}
