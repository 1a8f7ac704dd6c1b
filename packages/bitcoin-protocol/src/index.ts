// Bitcoin protocol facts shared by the Bitcoin adapter (@mp/chain-bitcoin) and the Bitcoin test node
// (@mp/test-nodes): here, below both, so that the test node does not depend on the chain package
// whose tests use it.
export {
  BITCOIN_NETWORKS,
  type BitcoinNetworkName,
  type BitcoinNetworkParams,
  bitcoinNetwork,
} from "./bitcoin-networks.ts";
export { BTC_DECIMALS, btcToSatoshis, MAX_MONEY_SATOSHIS, satoshisToBtcString } from "./btc-amount.ts";
export { P2WPKH_DUST } from "./dust.ts";
