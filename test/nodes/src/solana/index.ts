/**
 * Solana test node: a JSON-RPC server (getSlot, getBlocks, getBlock jsonParsed, getFirstAvailableBlock,
 * getGenesisHash, requestAirdrop, plus `POST /_test/transfer` for SPL tokens) over a simulated cluster with real keys, signatures
 * and associated token accounts.
 *
 *   const node = await startSolanaTestNode();            // or { port, blockIntervalMs, seed }
 *   const config = resolveChainConfig("SOLANA", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" });
 *   const sig = node.transfer(address, 2_000_000_000n);  // queued; also transferToken/transferViaProgram/send
 *   node.mine();                                          // block produced; headers/scan see it now
 *   node.failTransfer(address, 1n); node.skipSlots(2); node.reorg(3, { drop: [sig] });
 *   node.purgeBelow(slot);                                // a ledger size limit: older blocks are gone
 *   await node.stop(); await node.restart();              // outage and recovery, state kept
 */
export { associatedTokenAddress } from "./keys.ts";
export type { TransactionVersion } from "./message-encoding.ts";
export type { ReorgOptions } from "./solana-chain.ts";
export {
  type SendOptions,
  type SolanaTestNode,
  type SolanaTestNodeOptions,
  startSolanaTestNode,
  type TestTokenInfo,
} from "./solana-test-node.ts";
export type { TransferSpec } from "./transaction-builder.ts";
