/** First byte of every Tron account and contract address (mainnet, Nile and Shasta alike). */
export const TRON_ADDRESS_PREFIX = 0x41;

/** topic0 of `Transfer(address,address,uint256)` (keccak256 of the signature), as the API writes it: no 0x. */
export const TRC20_TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** The transaction result the API reports for an executed transaction (`ret[0].contractRet`, `receipt.result`). */
export const SUCCESS = "SUCCESS";

/** `getblockbylimitnext` refuses more than this many blocks per call (`endNum - startNum <= 100`). */
export const MAX_BLOCKS_PER_LIMIT_NEXT = 100;
