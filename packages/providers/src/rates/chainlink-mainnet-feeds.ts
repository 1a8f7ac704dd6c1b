import type { ChainlinkFeed } from "./chainlink-rate-provider.ts";

/**
 * Default Chainlink feeds on Ethereum mainnet (chain id 1): the proxy addresses to call, their
 * decimals and heartbeats. Source: Chainlink's reference data directory `feeds-mainnet.json`
 * (the data behind docs.chain.link's price-feed pages), snapshot of November 2024 as committed in
 * github.com/daimo-eth/daimo `packages/daimo-contract/script/chainlink/1-raw-feed-info/feeds-mainnet.json`
 * @ 02fba9f35bd44f12703d9ccd4c7681233e726d5a (copied byte-exact to
 * ../shared/fixtures/chainlink/chainlink-rdd-feeds-ethereum-mainnet-2024-11.json, see SOURCES.md there).
 * Feeds change (heartbeats, decimals): check docs.chain.link before relying on these.
 *
 * Ethereum mainnet has no TRX/USD, POL/USD or CELO/USD feed (its MATIC/USD feed prices the old
 * token, not POL): configure those from another chain's feeds or take them from the ticker.
 */
export const CHAINLINK_MAINNET_FEEDS: Readonly<Record<string, ChainlinkFeed>> = {
  BTC: { address: "0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c", decimals: 8, heartbeatSeconds: 3600 },
  ETH: { address: "0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419", decimals: 8, heartbeatSeconds: 3600 },
  SOL: { address: "0x4ffC43a60e009B551865A93d232E33Fce9f01507", decimals: 8, heartbeatSeconds: 86400 },
  BNB: { address: "0x14e613AC84a31f709eadbdF89C6CC390fDc9540A", decimals: 8, heartbeatSeconds: 86400 },
  USDC: { address: "0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6", decimals: 8, heartbeatSeconds: 86400 },
  USDT: { address: "0x3E7d1eAB13ad0104d2750B8863b489D65364e32D", decimals: 8, heartbeatSeconds: 86400 },
};
