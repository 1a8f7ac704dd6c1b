import type { GenesisNetwork, KnownNetworks } from "@mp/core";

/** First byte of every Tron account and contract address (mainnet, Nile and Shasta alike). */
export const TRON_ADDRESS_PREFIX = 0x41;

/** topic0 of `Transfer(address,address,uint256)` (keccak256 of the signature), as the API writes it: no 0x. */
export const TRC20_TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** The transaction result the API reports for an executed transaction (`ret[0].contractRet`, `receipt.result`). */
export const SUCCESS = "SUCCESS";

/** `getblockbylimitnext` refuses more than this many blocks per call (`endNum - startNum <= 100`). */
export const MAX_BLOCKS_PER_LIMIT_NEXT = 100;

/** The public Tron networks, by the id of their block 0: mainnet; testnet is Nile or Shasta. */
export const TRON_NETWORKS: KnownNetworks<GenesisNetwork> = {
  mainnet: [{ name: "mainnet", genesis: "00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc" }],
  testnet: [
    { name: "nile", genesis: "0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc" },
    { name: "shasta", genesis: "0000000000000000de1aa88295e1fcf982742f773e0419c5a9c134c994a9059e" },
  ],
};
