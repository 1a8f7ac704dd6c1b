/**
 * Tron test node: java-tron's full-node HTTP API (getnowblock, getblockbynum, getblockbylimitnext,
 * gettransactioninfobyblocknum, plus `POST /_test/transfer` for the sandbox faucet) over an
 * in-memory chain with real secp256k1 keys, base58check addresses and protobuf txIDs, and a USDT
 * TRC-20 whose transfers emit real Transfer logs.
 *
 *   const node = await startTronTestNode();             // or { port, blockIntervalMs, seed }
 *   const config = resolveChainConfig("TRON", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" });
 *   const txID = node.transfer(address, 5_000_000n);    // queued; also transferToken / failTransfer
 *   node.forwardTrx([{ to: address, amount: 1n }]);      // TRX paid by a contract: internal transactions
 *   node.mine();                                         // block produced; headers/scan see it now
 *   node.reorg(2, { drop: [txID] });
 *   await node.stop(); await node.restart();             // outage and recovery, state kept
 *
 * Sending (wallet-api.ts): createtransaction, triggersmartcontract, triggerconstantcontract,
 * broadcasttransaction (validated as java-tron does: duplicate, TaPoS, expiration against the head
 * block's time, the owner's secp256k1 signature, the contract; refusals in its `{code, txid,
 * message: hex}` shape), getaccount, getaccountresource, getchainparameters, gettransactionbyid,
 * gettransactioninfobyid. Energy: a TRC-20 transfer takes 14,650; staked energy pays first, the
 * rest is burnt at the energy price up to fee_limit, else OUT_OF_ENERGY (fee burnt, no transfer).
 *   node.hold(true);                  // accepted transactions stay pending; expired ones are dropped
 *   node.setEnergyPrice(200n);        // getEnergyFee: raise it after an estimate to run out of energy
 *   node.stakeEnergy(address, 20_000n);
 */
export { addressToHex, hexToAddress, TronKey } from "./keys.ts";
export { TRANSFER_TOPIC } from "./transactions.ts";
export { BLOCK_MS, type ReorgOptions } from "./tron-chain.ts";
export {
  type ForwardPayment,
  startTronTestNode,
  type TronSendOptions,
  type TronTestNode,
  type TronTestNodeOptions,
  type TronTestToken,
} from "./tron-test-node.ts";
