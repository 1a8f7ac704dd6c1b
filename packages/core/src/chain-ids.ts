// Apart from chains.ts (zod's schemas): the `payments` command lists them in its help without loading zod.
/** The ten supported chains, as the API spells them. */
export const CHAIN_IDS = [
  "BASE",
  "ARBITRUM",
  "POLYGON",
  "CELO",
  "BSC",
  "ETHEREUM",
  "OPTIMISM",
  "SOLANA",
  "BITCOIN",
  "TRON",
] as const;
