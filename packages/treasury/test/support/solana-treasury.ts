import { type ChainConfig, type Logger, resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys, type TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { type SolanaTestNode, startSolanaTestNode } from "@mp/test-nodes/solana";
import { createSolanaSender } from "../../../../chains/solana/src/send/solana-sender.ts";
import { KEY_SCHEMES } from "../../../../services/payments/src/chain-families.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import { TEST_TREASURY_MNEMONIC } from "./evm-treasury.ts";

export const LAMPORTS_PER_SOL = 1_000_000_000n;

export interface SolanaTreasuryHarness {
  node: SolanaTestNode;
  config: ChainConfig;
  keys: TreasuryKeys;
  /** The treasury's Solana address. */
  treasury: string;
  sender(options?: { db?: Database; logger?: Logger }): ChainSender;
  /** Stops the node. */
  stop(): Promise<void>;
}

/** The Solana test node (mined by the test), a SOLANA config on it, and a funded treasury wallet. */
export async function startSolanaTreasury(
  db: Database,
  funds: { sol: bigint; usdc: bigint } = { sol: 10n * LAMPORTS_PER_SOL, usdc: 1_000_000n * 10n ** 6n },
): Promise<SolanaTreasuryHarness> {
  const node = await startSolanaTestNode({ seed: `treasury-${Math.random()}` });
  const config = resolveChainConfig("SOLANA", {
    rpcUrl: node.url,
    confirmations: 2,
    network: "regtest",
    tokens: [...node.tokens],
  });
  const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const treasury = keys.key("solana").address;
  if (funds.sol > 0n) node.transfer(treasury, funds.sol);
  if (funds.usdc > 0n) node.transferToken(treasury, "USDC", funds.usdc);
  node.mine();
  return {
    node,
    config,
    keys,
    treasury,
    sender: (options = {}) =>
      createSolanaSender({ config, keys, db: options.db ?? db, logger: options.logger ?? silentLogger() }),
    stop: () => node.stop(),
  };
}
