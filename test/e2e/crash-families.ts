import { randomBytes } from "node:crypto";
import { createBitcoinAdapter } from "@mp/chain-bitcoin";
import { createSolanaAdapter } from "@mp/chain-solana";
import { createTronAdapter } from "@mp/chain-tron";
import {
  type ChainAdapter,
  type ChainConfig,
  type ChainConfigInput,
  normalizeAddress,
  type ObservedTransfer,
  resolveChainConfig,
} from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { deriveTestAddresses, startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { startSolanaTestNode } from "@mp/test-nodes/solana";
import { startTronTestNode, BLOCK_MS as TRON_BLOCK_MS, TronKey } from "@mp/test-nodes/tron";
import { recordTreasuryAddresses, treasurySendAddresses } from "@mp/treasury";
import { Keypair } from "@solana/web3.js";
import { familyOf, KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { catchUp, newIndexer, waitFor } from "../indexer/indexer-fixtures.ts";
import { stopIfThrows } from "../support/stop-if-throws.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";

/** The families whose signer the crash suite kills (EVM has treasury-signer.test.ts). */
export type CrashChain = "BITCOIN" | "SOLANA" | "TRON";

/**
 * One chain's test node producing a block every second (as the local sandbox runs it), the treasury
 * of `mnemonic` funded on it and recorded (as the signer records it), and the real indexer watching
 * it, so the funding is the operator's float and `payments reconcile chains` can agree.
 */
export interface CrashFamily {
  chain: CrashChain;
  /** What the sends pay: `amount` (decimal, as the CLI takes it) of `asset`, `amountRaw` in base units. */
  asset: string;
  amount: string;
  amountRaw: bigint;
  /** The chain's CHAINS_CONFIG entry. */
  input: ChainConfigInput;
  /** A recipient no one else pays. */
  freshPayee(): string;
  /** The node's head. */
  head(): Promise<number>;
  /** Every transfer the node's blocks from `fromHeight` to its head make to `payee` (read by the chain's adapter). */
  paymentsTo(payee: string, fromHeight: number): Promise<ObservedTransfer[]>;
  /** Whether the node has the transaction in a block. */
  landed(txHash: string): boolean;
  /** Ticks the indexer up to the node's head. */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

const BLOCK_INTERVAL_MS = 1_000;
/** A bound for the funding to land: blocks come every second, the machine may be loaded. */
const FUNDING_TIMEOUT_MS = 60_000;

interface StartedNode {
  input: ChainConfigInput;
  adapter: (config: ChainConfig) => ChainAdapter;
  fund(treasury: string): Promise<void>;
  landed(txHash: string): boolean;
  freshPayee(): string;
  stop(): Promise<void>;
}

let payees = 0;

async function startBitcoin(): Promise<StartedNode & Sends> {
  const node = await startBitcoinTestNode({
    network: "regtest",
    blockIntervalMs: BLOCK_INTERVAL_MS,
    walletSeed: `crash-${randomBytes(8).toString("hex")}`,
  });
  return {
    asset: "BTC",
    amount: "0.0125",
    amountRaw: 1_250_000n,
    input: { rpcUrl: node.url, network: "regtest", confirmations: 2, pollIntervalMs: 300, startHeight: node.height },
    adapter: (config) => createBitcoinAdapter(config, { timeoutMs: 10_000 }),
    async fund(treasury) {
      // Several coins: each send spends one, its change is a coin again once mined.
      const { txid } = node.sendOutputs(Array.from({ length: 4 }, () => ({ address: treasury, amount: 100_000_000n })));
      await waitFor(
        "the treasury's bitcoin to be mined",
        async () => node.blockOf(txid) !== undefined,
        FUNDING_TIMEOUT_MS,
      );
    },
    landed: (txid) => node.blockOf(txid) !== undefined,
    freshPayee: () => deriveTestAddresses(1, "regtest", `crash-payee-${payees++}-${process.pid}`)[0] as string,
    stop: () => node.stop(),
  };
}

type Sends = Pick<CrashFamily, "asset" | "amount" | "amountRaw">;

/** What Solana's and Tron's test nodes share: token lists, and transactions looked up by id. */
interface AccountTestNode {
  url: string;
  tokens: Iterable<{ asset: string; address: string; decimals: number }>;
  transaction(id: string): unknown;
  stop(): Promise<void>;
}

/** An account chain's node: the treasury is funded by the transfers `fund` makes (native coin and token). */
function accountChain(
  node: AccountTestNode,
  sends: Sends,
  parts: {
    adapter: StartedNode["adapter"];
    fund(treasury: string): string[];
    freshPayee(): string;
  },
): StartedNode & Sends {
  const landed = (id: string) => node.transaction(id) !== undefined;
  return {
    ...sends,
    input: { rpcUrl: node.url, network: "regtest", confirmations: 2, pollIntervalMs: 300, tokens: [...node.tokens] },
    adapter: parts.adapter,
    async fund(treasury) {
      const ids = parts.fund(treasury);
      await waitFor(`the treasury's ${sends.asset} funding to land`, async () => ids.every(landed), FUNDING_TIMEOUT_MS);
    },
    landed,
    freshPayee: parts.freshPayee,
    stop: () => node.stop(),
  };
}

async function startSolana(): Promise<StartedNode & Sends> {
  const node = await startSolanaTestNode({ blockIntervalMs: BLOCK_INTERVAL_MS, seed: `crash-${Math.random()}` });
  return accountChain(
    node,
    { asset: "USDC", amount: "7.25", amountRaw: 7_250_000n },
    {
      adapter: (config) => createSolanaAdapter(config),
      fund: (treasury) => [
        node.transfer(treasury, 10n * 1_000_000_000n),
        node.transferToken(treasury, "USDC", 1_000n * 1_000_000n),
      ],
      freshPayee: () => Keypair.generate().publicKey.toBase58(),
    },
  );
}

async function startTron(): Promise<StartedNode & Sends> {
  // Blocks every BLOCK_MS (3 s, as on the real chain): block time then runs with the clock, so a
  // transaction's 60 s expiration is 60 s, not the 20 s that 1 s blocks of 3 s timestamps would make it.
  const node = await startTronTestNode({ blockIntervalMs: TRON_BLOCK_MS, seed: `crash-${Math.random()}` });
  return accountChain(
    node,
    { asset: "USDT", amount: "3.5", amountRaw: 3_500_000n },
    {
      adapter: (config) => createTronAdapter(config),
      fund: (treasury) => [
        node.transfer(treasury, 1_000n * 1_000_000n),
        node.transferToken(treasury, 1_000n * 1_000_000n),
      ],
      freshPayee: () => new TronKey(randomBytes(32).toString("hex")).address,
    },
  );
}

const STARTERS = { BITCOIN: startBitcoin, SOLANA: startSolana, TRON: startTron } as const;

/** Starts `chain`'s node, records and funds the treasury of `mnemonic` there, and indexes it. */
export async function startCrashFamily(db: Database, chain: CrashChain, mnemonic: string): Promise<CrashFamily> {
  return stopIfThrows(await STARTERS[chain](), async (started) => {
    const config = resolveChainConfig(chain, started.input);
    const keys = createTreasuryKeys(mnemonic, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const addresses = treasurySendAddresses(keys, { [chain]: config }, familyOf);
    await recordTreasuryAddresses(db, addresses);
    const treasury = addresses[0]?.address as string;
    const adapter = started.adapter(config);
    const indexer = newIndexer(db, { chain, config, adapter: () => adapter }, { leaseSeconds: TEST_LEASE_SECONDS });
    await started.fund(treasury);
    // Bitcoin: the sender spends the coins the indexer recorded (treasury_utxos).
    await catchUp(indexer);
    return {
      chain,
      asset: started.asset,
      amount: started.amount,
      amountRaw: started.amountRaw,
      input: started.input,
      freshPayee: started.freshPayee,
      head: () => adapter.head(),
      async paymentsTo(payee, fromHeight) {
        const key = normalizeAddress(chain, payee);
        return adapter.scan({ from: fromHeight, to: await adapter.head() }, { has: (address) => address === key });
      },
      landed: started.landed,
      catchUp: async () => {
        await catchUp(indexer);
      },
      async stop() {
        await indexer.stop();
        await started.stop();
      },
    };
  });
}
