import type { ChainId } from "@mp/core";
import type { ChainSender, SenderFactoryOptions } from "@mp/treasury/ports";
import { bytesToHex, getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { resolveEvmAssets } from "../evm-assets.ts";
import { checkEvmChainId } from "../evm-networks.ts";
import { blockAnswer } from "./evm-answers.ts";
import { evmAttemptStatus } from "./evm-attempt-status.ts";
import { signEvmAttempt } from "./evm-attempts.ts";
import { broadcastEvm } from "./evm-broadcast.ts";
import { createEvmFunds } from "./evm-funds.ts";
import { createGasEstimator } from "./evm-gas.ts";
import { createEvmNode, type EvmNode } from "./evm-node.ts";
import { createEvmNonces } from "./evm-nonces.ts";
import { createEvmPreparer, type EvmPrepared } from "./evm-prepare.ts";
import { fillEvmNonce, replaceEvmAttempt } from "./evm-replacements.ts";

/** Blocks an EVM attempt may stay unmined before it is replaced with higher fees. */
const STUCK_AFTER_BLOCKS = 3;

/**
 * The EVM family's sender (viem): one treasury address per chain (TreasuryKeys.key("evm")), native
 * transfers and ERC-20 `transfer` of the configured tokens, EIP-1559 fees where the chain has a
 * base fee (legacy gasPrice where it has none). Nonces come from treasury_nonces (evm-nonces.ts).
 */
export function createEvmSender(options: SenderFactoryOptions & { node?: EvmNode }): ChainSender {
  const { config, db } = options;
  const chain: ChainId = config.chain;
  const assets = resolveEvmAssets(config);
  const account = privateKeyToAccount(bytesToHex(options.keys.key("evm").privateKey));
  const address = account.address;
  // Shared with other signers on the chain when given (the sweeper's deposit addresses): one fee read serves all.
  const node = options.node ?? createEvmNode(config, { fetch: options.fetch });
  // Broadcasts go out as JSON-RPC batches: the pipeline issues a signed chunk's (up to preparesAhead)
  // at once, in nonce order, and one request carries them (a node queues a nonce ahead of its turn).
  const pushNode = options.node ?? createEvmNode(config, { fetch: options.fetch, batch: true });
  const funds = createEvmFunds(db, node, chain, address);
  const nonces = createEvmNonces(db, node, chain, address);
  const estimateGas = createGasEstimator(node, address);
  const preparer = createEvmPreparer({ chain, address, assets, node, funds, nonces, estimateGas });

  return {
    chain,
    address,
    maxBatch: 1,
    // prepare() adds every order it passes to the commitments at once (evm-prepare.ts).
    preparesAhead: 20,
    stuckAfterBlocks: STUCK_AFTER_BLOCKS,
    landsInGuardOrder: true,

    // It signs for the node's chain id: a node of another chain would have it pay out there.
    verifyNode: async () => checkEvmChainId(assets.chain, config.network, await node.chainId()),

    async head() {
      funds.reset();
      const block = await node.head();
      return Number(BigInt(block.number));
    },

    async blockHash(height) {
      const block = await node.rpc("eth_getBlockByNumber", [`0x${height.toString(16)}`, false], blockAnswer.nullable());
      return block?.hash ?? null;
    },

    async balances() {
      const out: Record<string, bigint> = {};
      out[assets.native.asset] = await funds.balanceOf({ native: true, address: null });
      for (const token of assets.tokens) {
        out[token.asset] = await funds.balanceOf({ native: false, address: getAddress(token.address) });
      }
      return out;
    },

    prepare: preparer.prepare,

    async sign(tx, orders, preparedInput) {
      const prepared = preparedInput as EvmPrepared;
      const [order] = orders;
      if (!order) throw new Error("nothing to sign");
      const nonce = await nonces.allocate(tx, prepared.startNonce);
      const { call, fees: f } = prepared;
      const base = { chainId: prepared.chainId, nonce, to: call.to, value: call.value, gas: call.gas, data: call.data };
      return signEvmAttempt(account, base, f, [order]);
    },

    broadcast: (attempt) => broadcastEvm(pushNode, chain, attempt),

    status: (attempt) => evmAttemptStatus(node, db, chain, attempt),

    replace: async (_tx, attempt) =>
      replaceEvmAttempt(account, attempt, node.lastBaseFee(), preparer.knownChainId() ?? 0),

    fill: async (_tx, attempt) => fillEvmNonce(account, attempt, preparer.knownChainId() ?? 0),
  };
}
