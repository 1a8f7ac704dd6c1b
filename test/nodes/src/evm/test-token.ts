import { type Address, encodeDeployData, encodeFunctionData, getAddress } from "viem";
import type { AnvilAccount } from "./anvil-accounts.ts";
import type { AnvilNode } from "./anvil-node.ts";
import { loadContractsArtifact, revertingReceiverAbi, testTokenAbi } from "./test-contracts.ts";
import { type MinedTransaction, minedTransaction, sendFromUnlocked } from "./transactions.ts";

export interface TestToken {
  address: Address;
  name: string;
  symbol: string;
  decimals: number;
}

export interface DeployTestTokenOptions {
  name: string;
  symbol: string;
  decimals: number;
  /** Minted to the deployer at construction; default 10^12 whole tokens. */
  initialSupply?: bigint;
  /** Default: accounts[0], the sandbox faucet. */
  deployer?: AnvilAccount;
}

/** Deploys contracts/TestToken.sol (checked-in bytecode); the deployer holds the whole supply. */
export async function deployTestToken(node: AnvilNode, options: DeployTestTokenOptions): Promise<TestToken> {
  const { TestToken } = loadContractsArtifact().contracts;
  const initialSupply = options.initialSupply ?? 10n ** 12n * 10n ** BigInt(options.decimals);
  const data = encodeDeployData({
    abi: testTokenAbi,
    bytecode: TestToken.bytecode,
    args: [options.name, options.symbol, options.decimals, initialSupply],
  });
  const address = await deploy(node, options.deployer ?? defaultAccount(node), data);
  return { address, name: options.name, symbol: options.symbol, decimals: options.decimals };
}

/** Deploys a contract whose receive() reverts: a value transfer to it is mined with status 0. */
export async function deployRevertingReceiver(node: AnvilNode): Promise<Address> {
  const { RevertingReceiver } = loadContractsArtifact().contracts;
  const data = encodeDeployData({ abi: revertingReceiverAbi, bytecode: RevertingReceiver.bytecode });
  return deploy(node, defaultAccount(node), data);
}

export interface SendOptions {
  /** Default accounts[0]. */
  from?: AnvilAccount;
  /** Skips estimation: needed to get a reverting transaction mined. */
  gas?: bigint;
}

/** Calls the token's `transfer(to, amount)` or `mint(to, amount)`. */
function callToken(
  functionName: "transfer" | "mint",
): (
  node: AnvilNode,
  token: Pick<TestToken, "address">,
  to: string,
  amount: bigint,
  options?: SendOptions,
) => Promise<MinedTransaction> {
  return (node, token, to, amount, options = {}) => {
    const data = encodeFunctionData({ abi: testTokenAbi, functionName, args: [getAddress(to), amount] });
    return send(node, { to: token.address, data }, options);
  };
}

export const transferToken = callToken("transfer");

/** One payment of a batch payout (TestToken.batchTransfer, the Forwarder's forward). */
export interface BatchPayment {
  to: string;
  amount: bigint;
}

/** The (recipients, amounts) arguments the batch payout functions take. */
export function batchPayoutArgs(payments: readonly BatchPayment[]): [Address[], bigint[]] {
  return [payments.map((p) => getAddress(p.to)), payments.map((p) => p.amount)];
}

/** One transaction paying every recipient (one Transfer log each, in order). */
export async function batchTransferToken(
  node: AnvilNode,
  token: Pick<TestToken, "address">,
  payments: readonly BatchPayment[],
  options: SendOptions = {},
): Promise<MinedTransaction> {
  const data = encodeFunctionData({
    abi: testTokenAbi,
    functionName: "batchTransfer",
    args: batchPayoutArgs(payments),
  });
  return send(node, { to: token.address, data }, { gas: batchTransferGas(payments.length), ...options });
}

/** Only the deployer may mint: from another account the transaction reverts (give `gas` to see it mined). */
export const mintToken = callToken("mint");

/** A plain value transfer of the native coin (wei). */
export async function sendNative(
  node: AnvilNode,
  to: string,
  value: bigint,
  options: SendOptions = {},
): Promise<MinedTransaction> {
  return send(node, { to: getAddress(to), value }, options);
}

export async function tokenBalance(node: AnvilNode, token: Pick<TestToken, "address">, owner: string): Promise<bigint> {
  return node.publicClient.readContract({
    address: token.address,
    abi: testTokenAbi,
    functionName: "balanceOf",
    args: [getAddress(owner)],
  });
}

/** Upper bound for batchTransfer to fresh recipients (~30k gas each), so no estimation is needed. */
export function batchTransferGas(recipients: number): bigint {
  return 100_000n + 40_000n * BigInt(recipients);
}

export function defaultAccount(node: AnvilNode): AnvilAccount {
  const account = node.accounts[0];
  if (!account) throw new Error("anvil node has no dev account");
  return account;
}

/** Sends from `options.from` (default accounts[0]) through the node and waits until mined. */
export async function send(
  node: AnvilNode,
  tx: { to: Address; data?: `0x${string}`; value?: bigint },
  options: SendOptions,
): Promise<MinedTransaction> {
  const from = (options.from ?? defaultAccount(node)).address;
  const hash = await sendFromUnlocked(node, {
    from,
    ...tx,
    ...(options.gas === undefined ? {} : { gas: options.gas }),
  });
  return minedTransaction(node, hash);
}

/** Deploys `data` (bytecode and constructor arguments) from `deployer`; the new contract's address. */
export async function deploy(node: AnvilNode, deployer: AnvilAccount, data: `0x${string}`): Promise<Address> {
  const hash = await node.walletClient.request({
    method: "eth_sendTransaction",
    params: [{ from: deployer.address, data }],
  });
  await minedTransaction(node, hash);
  const receipt = await node.publicClient.getTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  return getAddress(receipt.contractAddress);
}
