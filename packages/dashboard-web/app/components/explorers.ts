/**
 * One table of block explorers: where a transaction of each chain can be looked at, per network.
 * `testnet` is the public test network the service lists first for the chain (Sepolia where there is
 * one, Solana devnet, Tron Nile, Bitcoin testnet4). A `regtest` chain is a local node (the sandbox's
 * anvil, test validator or regtest bitcoind): no public explorer knows it, so there is no link.
 */
type Network = "mainnet" | "testnet" | "regtest";

const EXPLORERS: Readonly<Record<string, { mainnet: string; testnet: string }>> = {
  ETHEREUM: { mainnet: "https://etherscan.io/tx/{tx}", testnet: "https://sepolia.etherscan.io/tx/{tx}" },
  BASE: { mainnet: "https://basescan.org/tx/{tx}", testnet: "https://sepolia.basescan.org/tx/{tx}" },
  ARBITRUM: { mainnet: "https://arbiscan.io/tx/{tx}", testnet: "https://sepolia.arbiscan.io/tx/{tx}" },
  OPTIMISM: {
    mainnet: "https://optimistic.etherscan.io/tx/{tx}",
    testnet: "https://sepolia-optimism.etherscan.io/tx/{tx}",
  },
  POLYGON: { mainnet: "https://polygonscan.com/tx/{tx}", testnet: "https://amoy.polygonscan.com/tx/{tx}" },
  BSC: { mainnet: "https://bscscan.com/tx/{tx}", testnet: "https://testnet.bscscan.com/tx/{tx}" },
  CELO: { mainnet: "https://celoscan.io/tx/{tx}", testnet: "https://celo-sepolia.blockscout.com/tx/{tx}" },
  SOLANA: {
    mainnet: "https://explorer.solana.com/tx/{tx}",
    testnet: "https://explorer.solana.com/tx/{tx}?cluster=devnet",
  },
  BITCOIN: { mainnet: "https://mempool.space/tx/{tx}", testnet: "https://mempool.space/testnet4/tx/{tx}" },
  TRON: {
    mainnet: "https://tronscan.org/#/transaction/{tx}",
    testnet: "https://nile.tronscan.org/#/transaction/{tx}",
  },
};

/** Where to see transaction `tx` of `chain` on `network`: a link, or why there is none. */
export function explorerOf(
  chain: string,
  network: Network | undefined,
  tx: string,
): { url: string; name: string } | { url: undefined; why: string } {
  if (network === undefined) return { url: undefined, why: `${chain} is not configured in this deployment` };
  if (network === "regtest") return { url: undefined, why: "local network: no public explorer" };
  const template = EXPLORERS[chain]?.[network];
  if (!template) return { url: undefined, why: `no explorer known for ${chain}` };
  const url = template.replace("{tx}", encodeURIComponent(tx));
  return { url, name: new URL(url).hostname };
}
