import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { createBitcoinAdapter } from "@mp/chain-bitcoin";
import { AppError, type ChainConfig, resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys, type TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import type { Indexer } from "@mp/indexer";
import { parseJsonExact } from "@mp/rpc";
import { type BitcoinTestNode, deriveTestAddresses, startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { createBitcoinSender } from "../../../../chains/bitcoin/src/send/bitcoin-sender.ts";
import { KEY_SCHEMES } from "../../../../services/payments/src/chain-families.ts";
import { newIndexer } from "../../../../test/indexer/indexer-fixtures.ts";
import { TEST_LEASE_SECONDS } from "../../../../test/support/test-leases.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import { TEST_TREASURY_MNEMONIC } from "./evm-treasury.ts";

export interface BitcoinTreasuryHarness {
  node: BitcoinTestNode;
  config: ChainConfig;
  keys: TreasuryKeys;
  /** The treasury's receive (send-from) address, m/84'/1'/0'/0/0. */
  treasury: string;
  indexer: Indexer;
  sender(): ChainSender;
  /** Pays these amounts to the treasury in one transaction, mines it and lets the indexer record the coins. */
  fund(amounts: readonly bigint[]): Promise<void>;
  /** Mines `count` blocks and lets the indexer catch up. */
  mine(count?: number): Promise<void>;
  /** Ticks the indexer up to the node's head. */
  catchUp(): Promise<void>;
  /** Stops the indexer (its lease keeper) and the node. */
  stop(): Promise<void>;
}

/**
 * The Bitcoin test node, a BITCOIN chain config on it, the treasury's receive address recorded in
 * treasury_addresses (as the signer does at start), and the real indexer watching it: the
 * treasury's coins reach treasury_utxos the way they do in production. The node runs without
 * `-txindex` (Core's default) unless `txindex` is set.
 */
export async function startBitcoinTreasury(
  db: Database,
  options: { txindex?: boolean } = {},
): Promise<BitcoinTreasuryHarness> {
  const node = await startBitcoinTestNode({
    walletSeed: `treasury-${Math.random()}`,
    txindex: options.txindex ?? false,
  });
  const config = resolveChainConfig("BITCOIN", {
    rpcUrl: node.url,
    confirmations: 2,
    network: "regtest",
    startHeight: node.height + 1,
  });
  const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const receive = keys.key("bitcoin");
  await db.query(
    `INSERT INTO treasury_addresses (chain, purpose, path, address, address_key) VALUES ('BITCOIN', 'send', $1, $2, $2)
     ON CONFLICT DO NOTHING`,
    [receive.path, receive.address],
  );
  const indexer = newIndexer(
    db,
    { chain: "BITCOIN", config, adapter: () => createBitcoinAdapter(config, { timeoutMs: 5_000 }) },
    { leaseSeconds: TEST_LEASE_SECONDS },
  );
  const catchUp = async () => {
    for (let i = 0; i < 50; i++) {
      // A connection the loaded test node reset (its keep-alive race) is retried, as the indexer's
      // own loop retries a tick: seen once in a 150-case sweep fuzz run at load 25, not a fault it injects.
      const result = await indexer.tick().catch((error: unknown) => {
        if (error instanceof AppError && error.retryable) return null;
        throw error;
      });
      if (result?.caughtUp && result.reorgAncestor === null) return;
    }
    throw new Error("the indexer did not catch up");
  };
  return {
    node,
    config,
    keys,
    treasury: receive.address,
    indexer,
    sender: () => createBitcoinSender({ config, keys, db, logger: silentLogger() }),
    async fund(amounts) {
      node.sendOutputs(amounts.map((amount) => ({ address: receive.address, amount })));
      node.mine(1);
      await catchUp();
    },
    async mine(count = 1) {
      node.mine(count);
      await catchUp();
    },
    catchUp,
    async stop() {
      await indexer.stop();
      await node.stop();
    },
  };
}

let next = 0;
/** Fresh P2WPKH recipients no one else pays (real keys of a test seed). */
export function freshRecipients(count: number): string[] {
  const seed = `recipients-${next++}-${process.pid}`;
  return deriveTestAddresses(count, "regtest", seed);
}

/** A JSON-RPC call to the test node with Core's error (code and message) kept, not thrown. */
export async function nodeRpc(
  node: BitcoinTestNode,
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const url = new URL(node.url);
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  const response = await fetch(`http://127.0.0.1:${node.port}/`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(credentials).toString("base64")}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const reply = parseJsonExact(await response.text()) as {
    result?: unknown;
    error?: { code: number; message: string } | null;
  };
  return reply.error ? { error: reply.error } : { result: reply.result };
}

/**
 * What the node's active chain paid `address` in the transaction `txid` (0 when the transaction is
 * not mined). Asked with the block's hash, as a node without -txindex needs.
 */
export async function paidOnChain(node: BitcoinTestNode, txid: string, address: string): Promise<bigint> {
  const block = node.blockOf(txid);
  if (block === undefined) return 0n;
  const { result } = await nodeRpc(node, "getrawtransaction", [txid, true, block]);
  const tx = result as
    | { confirmations?: number; vout: { value: string; scriptPubKey: { address?: string } }[] }
    | undefined;
  if (!tx?.confirmations) return 0n;
  return tx.vout
    .filter((o) => o.scriptPubKey.address === address)
    .reduce((sum, o) => sum + (btcToSatoshis(o.value) ?? 0n), 0n);
}
