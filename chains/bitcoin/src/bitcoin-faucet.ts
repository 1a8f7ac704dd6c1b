import { BTC_DECIMALS, bitcoinNetwork, MAX_MONEY_SATOSHIS, satoshisToBtcString } from "@mp/bitcoin-protocol";
import type { ChainAsset, ChainConfig, SandboxFaucet } from "@mp/core";
import { ConfigError, chainFamily, ValidationError } from "@mp/core";
import { type FetchLike, JsonNumberLiteral, JsonRpcError } from "@mp/rpc";
import { address as bitcoinAddress } from "bitcoinjs-lib";
import { z } from "zod";
import { bitcoinRpc } from "./bitcoin-rpc.ts";
import { BTC_ASSET } from "./block-transfers.ts";
import { RPC_CODES } from "./rpc-codes.ts";
import { HASH_HEX } from "./rpc-schemas.ts";

export interface BitcoinFaucetOptions {
  fetch?: FetchLike;
  /**
   * Blocks mined (generatetoaddress, to a fresh node-wallet address) after each send so the payment
   * lands: a regtest node has no miners of its own. 0 when the node mines on a timer.
   */
  mineBlocks?: number;
}

const txidSchema = z.string().regex(HASH_HEX);
const addressSchema = z.string().min(1);
const blockHashesSchema = z.array(z.string().regex(HASH_HEX));

/**
 * Sandbox deposits on a local Bitcoin node through the node's own wallet, exactly as one would on
 * a regtest bitcoind: `sendtoaddress` (amount written as an exact 8-decimal literal) and then
 * `generatetoaddress`. `faucetPrivateKey` is not used: the node wallet holds the funds.
 */
export function createBitcoinFaucet(config: ChainConfig, options: BitcoinFaucetOptions = {}): SandboxFaucet {
  if (chainFamily(config.chain) !== "bitcoin") {
    throw new ConfigError(`CHAINS_CONFIG.${config.chain}`, "is not a Bitcoin chain");
  }
  const network = bitcoinNetwork(config.network);
  const rpc = bitcoinRpc(config, options);
  const mineBlocks = options.mineBlocks ?? 1;
  const native: ChainAsset = { asset: BTC_ASSET, address: null, decimals: BTC_DECIMALS };

  return {
    chain: config.chain,
    assets: () => [native],

    async send(to, asset, amountRaw) {
      if (asset !== BTC_ASSET) throw new ValidationError(`unsupported asset ${asset} on ${config.chain}`, "asset");
      if (amountRaw <= 0n || amountRaw > MAX_MONEY_SATOSHIS) {
        throw new ValidationError("amount must be positive and at most 21,000,000 BTC", "amount");
      }
      try {
        bitcoinAddress.toOutputScript(to, network.encoding);
      } catch {
        throw new ValidationError(`not a ${network.name} Bitcoin address`, "address");
      }
      let txid: string;
      try {
        const result = await rpc.call("sendtoaddress", [to, new JsonNumberLiteral(satoshisToBtcString(amountRaw))]);
        txid = rpc.validated(txidSchema, result, "sendtoaddress");
      } catch (error) {
        if (error instanceof JsonRpcError && error.rpcCode === RPC_CODES.INVALID_ADDRESS_OR_KEY) {
          throw new ValidationError(`the node refused the address: ${error.message}`, "address");
        }
        throw error;
      }
      if (mineBlocks > 0) {
        const minerAddress = rpc.validated(addressSchema, await rpc.call("getnewaddress"), "getnewaddress");
        const mined = await rpc.call("generatetoaddress", [mineBlocks, minerAddress]);
        rpc.validated(blockHashesSchema, mined, "generatetoaddress");
      }
      return { txHash: txid };
    },
  };
}
