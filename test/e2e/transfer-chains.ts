import { createTreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { type BitcoinTestNode, startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { startTronTestNode, type TronTestNode } from "@mp/test-nodes/tron";
import { english, generateMnemonic } from "viem/accounts";
import { type EvmTreasuryHarness, startEvmTreasury } from "../../packages/treasury/test/support/evm-treasury.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { runCli } from "../cli/run-cli.ts";
import { type ApiHarness, callApi, type TestMerchant } from "../support/api-harness.ts";
import { writeChainsConfig } from "../support/chains-config-file.ts";

/**
 * The chains a transfer story pays out on or is funded from, started by the test as the local sandbox
 * starts them (blocks every second on their own): BASE on anvil with a test USDC, the Bitcoin test
 * node, and the Tron test node with its USDT (its faucet pays customers' deposits). The
 * treasury is a fresh mnemonic's, given only to the signer (TREASURY_MNEMONIC): on BASE it holds ETH
 * for gas and USDC at once; its bitcoin arrives with fundBitcoinTreasury, once the signer recorded
 * the address and the indexer watches it.
 */
export interface TransferChains {
  base: EvmTreasuryHarness;
  bitcoin: BitcoinTestNode;
  tron: TronTestNode;
  mnemonic: string;
  /** The treasury's Bitcoin send-from address (m/84'/1'/0'/0/0, as the signer records it). */
  bitcoinTreasury: string;
  /** CHAINS_CONFIG for these chains, written into `dir`: the local sandbox's confirmations and polling. */
  chainsConfig(dir: string): string;
  /** Pays `sats` to the treasury's Bitcoin address in one transaction and mines it. */
  fundBitcoinTreasury(sats: bigint): void;
  stop(): Promise<void>;
}

export async function startTransferChains(db: Database): Promise<TransferChains> {
  const mnemonic = generateMnemonic(english, 256);
  const base = await startEvmTreasury(db, {
    mnemonic,
    blockTimeSeconds: 1,
    eth: 10n * 10n ** 18n,
    usdc: 100_000n * 10n ** 6n,
  });
  // Both settle before a failure is reported, so the one that started is stopped too.
  const [bitcoinStart, tronStart] = await Promise.allSettled([
    startBitcoinTestNode({ network: "regtest", blockIntervalMs: 1_000, walletSeed: mnemonic }),
    startTronTestNode({ blockIntervalMs: 1_000 }),
  ]);
  if (bitcoinStart.status === "rejected" || tronStart.status === "rejected") {
    await Promise.allSettled([
      base.stop(),
      ...[bitcoinStart, tronStart].flatMap((s) => (s.status === "fulfilled" ? [s.value.stop()] : [])),
    ]);
    throw bitcoinStart.status === "rejected" ? bitcoinStart.reason : (tronStart as PromiseRejectedResult).reason;
  }
  const node = bitcoinStart.value;
  const tron = tronStart.value;
  const bitcoinTreasury = createTreasuryKeys(mnemonic, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES }).key(
    "bitcoin",
  ).address;
  return {
    base,
    bitcoin: node,
    tron,
    mnemonic,
    bitcoinTreasury,
    chainsConfig: (dir) =>
      writeChainsConfig(dir, {
        // What startLocalSandbox gives these chains (SANDBOX_CONFIRMATIONS, its EVM confirmations).
        BASE: base.baseChain({ confirmations: 3, pollIntervalMs: 500 }),
        // From the current height: the premined blocks hold nothing of ours.
        BITCOIN: {
          rpcUrl: node.url,
          network: "regtest",
          confirmations: 2,
          pollIntervalMs: 500,
          startHeight: node.height,
        },
        TRON: {
          rpcUrl: tron.url,
          network: "regtest",
          confirmations: 5,
          pollIntervalMs: 500,
          tokens: [...tron.tokens],
        },
      }),
    fundBitcoinTreasury(sats) {
      node.sendOutputs([{ address: bitcoinTreasury, amount: sats }]);
      node.mine(1);
    },
    async stop() {
      await Promise.allSettled([base.stop(), node.stop(), tron.stop()]);
    },
  };
}

/** A sandbox merchant made by `payments merchants create`, as an operator makes one. */
export async function createCliMerchant(env: Record<string, string | undefined>, name: string): Promise<TestMerchant> {
  const created = await runCli(["merchants", "create", "--name", name, "--json"], env);
  if (created.code !== 0) throw new Error(`merchants create failed: ${created.stderr}`);
  const { merchant_id: merchantId, api_key: apiKey } = JSON.parse(created.stdout);
  return { merchantId, apiKey, keyPrefix: "" };
}

/** The ApiHarness.call of a `payments serve` process at `url`. */
export function remoteApi(url: string): Pick<ApiHarness, "call"> {
  return { call: (key, path, init) => callApi(url, key, path, init) };
}

/** The treasury sends paying a transfer out, each with its broadcast attempts' transaction (none before one). */
export async function transferPayouts(
  db: Database,
  transferId: string,
): Promise<
  Array<{ chain: string; asset: string; to_address: string; amount_raw: string; state: string; tx_hash: string | null }>
> {
  return (
    await db.query<{
      chain: string;
      asset: string;
      to_address: string;
      amount_raw: string;
      state: string;
      tx_hash: string | null;
    }>(
      `SELECT s.chain, s.asset, s.to_address, s.amount_raw::text AS amount_raw, s.state, a.tx_hash
         FROM treasury_sends s
         LEFT JOIN treasury_attempt_sends x ON x.send_id = s.id
         LEFT JOIN treasury_attempts a ON a.id = x.attempt_id
        WHERE s.purpose = 'transfer' AND s.idempotency_key = $1
        ORDER BY a.created_at`,
      [transferId],
    )
  ).rows;
}
