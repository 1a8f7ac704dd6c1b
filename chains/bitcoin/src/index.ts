export { type BitcoinAdapterOptions, createBitcoinAdapter, GENESIS_PARENT_HASH } from "./bitcoin-adapter.ts";
export { type BitcoinFaucetOptions, createBitcoinFaucet } from "./bitcoin-faucet.ts";
export { type BitcoinRpcOptions, bitcoinRpc } from "./bitcoin-rpc.ts";
export { BTC_ASSET, p2wpkhAddressOf } from "./block-transfers.ts";
export { RPC_CODES } from "./rpc-codes.ts";
