import { type Address, encodeDeployData, encodeFunctionData, getAddress } from "viem";
import type { AnvilNode } from "./anvil-node.ts";
import { forwarderAbi, loadContractsArtifact, revertingRelayAbi } from "./test-contracts.ts";
import { type BatchPayment, batchPayoutArgs, defaultAccount, deploy, type SendOptions, send } from "./test-token.ts";
import type { MinedTransaction } from "./transactions.ts";

/** contracts/TestToken.sol's Forwarder (a contract wallet paying out) and the RevertingRelay it can pay through. */
export interface ForwarderContracts {
  forwarder: Address;
  relay: Address;
}

export async function deployForwarder(node: AnvilNode): Promise<ForwarderContracts> {
  const { Forwarder, RevertingRelay } = loadContractsArtifact().contracts;
  const deployer = defaultAccount(node);
  return {
    forwarder: await deploy(node, deployer, encodeDeployData({ abi: forwarderAbi, bytecode: Forwarder.bytecode })),
    relay: await deploy(
      node,
      deployer,
      encodeDeployData({ abi: revertingRelayAbi, bytecode: RevertingRelay.bytecode }),
    ),
  };
}

/** One transaction to the forwarder paying each recipient in an internal call (value = their sum). */
export function forwardNative(
  node: AnvilNode,
  contracts: ForwarderContracts,
  payments: readonly BatchPayment[],
  options: SendOptions = {},
): Promise<MinedTransaction> {
  const data = encodeFunctionData({ abi: forwarderAbi, functionName: "forward", args: batchPayoutArgs(payments) });
  const value = payments.reduce((sum, p) => sum + p.amount, 0n);
  return send(
    node,
    { to: contracts.forwarder, data, value },
    {
      gas: 100_000n + 50_000n * BigInt(payments.length),
      ...options,
    },
  );
}

/** A successful transaction whose internal payment to `to` is undone by the relay's reverting frame. */
export function forwardViaRevertingRelay(
  node: AnvilNode,
  contracts: ForwarderContracts,
  to: string,
  amount: bigint,
): Promise<MinedTransaction> {
  const data = encodeFunctionData({
    abi: forwarderAbi,
    functionName: "forwardViaRevertingRelay",
    args: [contracts.relay, getAddress(to)],
  });
  return send(node, { to: contracts.forwarder, data, value: amount }, { gas: 200_000n });
}

/** A transaction that pays `to` internally and then reverts (mined with status 0). */
export function forwardThenRevert(
  node: AnvilNode,
  contracts: ForwarderContracts,
  to: string,
  amount: bigint,
): Promise<MinedTransaction> {
  const data = encodeFunctionData({ abi: forwarderAbi, functionName: "forwardThenRevert", args: [getAddress(to)] });
  return send(node, { to: contracts.forwarder, data, value: amount }, { gas: 200_000n });
}
