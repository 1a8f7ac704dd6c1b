import { randomBytes } from "node:crypto";
import { type ChainConfig, type Logger, resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys, type TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { sendNative, transferToken } from "@mp/test-nodes/evm";
import { getAddress, type Hex } from "viem";
import { createEvmSender } from "../../../../chains/evm/src/send/evm-sender.ts";
import { KEY_SCHEMES } from "../../../../services/payments/src/chain-families.ts";
import { type AnvilWithUsdc, startAnvilWithUsdc } from "../../../../test/support/anvil-usdc.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import { findSend, type SendState } from "../../src/send-requests.ts";

/** A public test mnemonic: its EVM treasury address is no anvil dev account (those sign the test's own transfers). */
export const TEST_TREASURY_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

export interface EvmTreasuryHarness extends AnvilWithUsdc {
  /** BASE on anvil, two confirmations. */
  config: ChainConfig;
  keys: TreasuryKeys;
  /** The treasury's EVM address (EIP-55). */
  treasury: Hex;
  sender(options?: { db: Database; logger?: Logger }): ChainSender;
  /** Stops anvil. */
  stop(): Promise<void>;
}

/**
 * anvil with a test USDC, a BASE chain config on it, and a funded treasury address (of `mnemonic`,
 * TEST_TREASURY_MNEMONIC unless given).
 */
export async function startEvmTreasury(
  db: Database,
  options: { eth?: bigint; usdc?: bigint; blockTimeSeconds?: number; mnemonic?: string } = {},
): Promise<EvmTreasuryHarness> {
  const funds = { eth: options.eth ?? 100n * 10n ** 18n, usdc: options.usdc ?? 1_000_000n * 10n ** 6n };
  const anvil = await startAnvilWithUsdc(
    options.blockTimeSeconds === undefined ? {} : { blockTimeSeconds: options.blockTimeSeconds },
  );
  const { node, usdc } = anvil;
  const config = resolveChainConfig("BASE", anvil.baseChain({ confirmations: 2 }));
  const keys = createTreasuryKeys(options.mnemonic ?? TEST_TREASURY_MNEMONIC, {
    bitcoinNetwork: "regtest",
    schemes: KEY_SCHEMES,
  });
  const treasury = getAddress(keys.key("evm").address);
  if (funds.eth > 0n) await sendNative(node, treasury, funds.eth);
  if (funds.usdc > 0n) await transferToken(node, usdc, treasury, funds.usdc);
  return {
    ...anvil,
    config,
    keys,
    treasury,
    sender: (options = { db }) =>
      createEvmSender({ config, keys, db: options.db, logger: options.logger ?? silentLogger() }),
    stop: () => node.stop(),
  };
}

/** A fresh recipient nobody else pays. */
export function freshAddress(): Hex {
  return getAddress(`0x${randomBytes(20).toString("hex")}`);
}

/**
 * Runs `step` (ticks, mining) until every send is in `state`, or throws after `timeoutMs` with
 * the states seen.
 */
export async function until(
  db: Database,
  ids: readonly string[],
  state: SendState,
  step: () => Promise<void>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await step();
    const sends = await Promise.all(ids.map((id) => findSend(db, id)));
    if (sends.every((s) => s?.state === state)) return;
    if (Date.now() > deadline) {
      const seen = sends.map((s) => `${s?.id}:${s?.state}:${s?.reason ?? ""}`);
      throw new Error(`sends not ${state} in ${timeoutMs} ms: ${seen.slice(0, 5).join(", ")}`);
    }
  }
}
