/**
 * Solana test node: a JSON-RPC server (getSlot, getBlocks, getBlock jsonParsed, getFirstAvailableBlock,
 * getGenesisHash, requestAirdrop, plus `POST /_test/transfer` for SPL tokens) over a simulated cluster with real keys, signatures
 * and associated token accounts. Wallets send through `sendTransaction` (validated as a validator
 * does: signatures, blockhash age, fee payer, preflight simulation of System transfer, SPL Token
 * transfer/transferChecked and associated token account Create/CreateIdempotent) and read with
 * getLatestBlockhash, getBlockHeight, getSignatureStatuses, getBalance, getAccountInfo,
 * getTokenAccountBalance (transaction-methods.ts).
 *
 *   const node = await startSolanaTestNode();            // or { port, blockIntervalMs, seed }
 *   const config = resolveChainConfig("SOLANA", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" });
 *   const sig = node.transfer(address, 2_000_000_000n);  // queued; also transferToken/transferViaProgram/send
 *   node.mine();                                          // block produced; headers/scan see it now
 *   node.failTransfer(address, 1n); node.skipSlots(2); node.reorg(3, { drop: [sig] });
 *   node.purgeBelow(slot);                                // a ledger size limit: older blocks are gone
 *   node.dropIncoming(true);                              // sent transactions are lost (blockhash expiry tests)
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
