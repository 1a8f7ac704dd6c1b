/**
 * The EVM test harness: a real node (anvil from @foundry-rs/anvil) plus a real ERC-20
 * (contracts/TestToken.sol, compiled by solc from npm) and helpers to move value on it.
 */

export { abiSignatures, functionSignatures } from "./abi-signatures.ts";
export { ANVIL_ACCOUNTS, ANVIL_DEPLOYER, type AnvilAccount } from "./anvil-accounts.ts";
export { anvilBinaryPath } from "./anvil-binary.ts";
export { type AnvilNode, type ReorgTransaction, type StartAnvilOptions, startAnvil } from "./anvil-node.ts";
export {
  deployForwarder,
  type ForwarderContracts,
  forwardNative,
  forwardThenRevert,
  forwardViaRevertingRelay,
} from "./forwarder.ts";
export {
  type CompiledAggregator,
  compileMockAggregator,
  deployMockAggregator,
  mockAggregatorAbi,
  type Round,
  setRound,
} from "./mock-aggregator.ts";
export { type SeededTransfers, type SeedTransfersOptions, seedTransfers, unwatchedAddress } from "./seed-transfers.ts";
export {
  CONTRACTS_ARTIFACT_URL,
  CONTRACTS_SOURCE_URL,
  type ContractsArtifact,
  forwarderAbi,
  loadContractsArtifact,
  revertingReceiverAbi,
  revertingRelayAbi,
  testTokenAbi,
} from "./test-contracts.ts";
export {
  batchTransferToken,
  type DeployTestTokenOptions,
  deployRevertingReceiver,
  deployTestToken,
  mintToken,
  type SendOptions,
  sendNative,
  type TestToken,
  tokenBalance,
  transferToken,
} from "./test-token.ts";
export { type MinedTransaction, minedTransaction, sendFromUnlocked } from "./transactions.ts";
