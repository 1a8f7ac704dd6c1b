import { readFileSync } from "node:fs";
import { type Hex, parseAbi } from "viem";
import { z } from "zod";

/**
 * The test contracts of `contracts/TestToken.sol`: ABIs written out here (so viem types every
 * call) and bytecode from the checked-in artifact `contracts/TestToken.sol.json`, which
 * `compile.ts` produces with solc from npm. A test recompiles the source and compares both.
 */
export const testTokenAbi = parseAbi([
  "constructor(string name_, string symbol_, uint8 decimals_, uint256 initialSupply)",
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function totalSupply() view returns (uint256)",
  "function owner() view returns (address)",
  "function balanceOf(address) view returns (uint256)",
  "function allowance(address, address) view returns (uint256)",
  "function mint(address to, uint256 amount)",
  "function transfer(address to, uint256 amount) returns (bool)",
  "function approve(address spender, uint256 amount) returns (bool)",
  "function transferFrom(address from, address to, uint256 amount) returns (bool)",
  "function batchTransfer(address[] to, uint256[] amounts) returns (bool)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "error InsufficientBalance(address account, uint256 balance, uint256 needed)",
  "error InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error NotOwner(address caller)",
  "error LengthMismatch(uint256 recipients, uint256 amounts)",
  "error ZeroAddress()",
]);

export const revertingReceiverAbi = parseAbi(["error PaymentRefused()", "receive() external payable"]);

export const forwarderAbi = parseAbi([
  "function forward(address[] to, uint256[] amounts) payable",
  "function forwardViaRevertingRelay(address relay, address to) payable",
  "function forwardThenRevert(address to) payable",
  "error ForwardFailed(address to)",
  "error LengthMismatch(uint256 recipients, uint256 amounts)",
  "error Undone()",
]);

export const revertingRelayAbi = parseAbi(["function payThenRevert(address to) payable", "error Undone()"]);

export const TEST_CONTRACT_NAMES = ["TestToken", "RevertingReceiver", "Forwarder", "RevertingRelay"] as const;
export type TestContractName = (typeof TEST_CONTRACT_NAMES)[number];

export const CONTRACTS_SOURCE_URL = new URL("./contracts/TestToken.sol", import.meta.url);
export const CONTRACTS_ARTIFACT_URL = new URL("./contracts/TestToken.sol.json", import.meta.url);

const bytecodeSchema = z.custom<Hex>(
  (value) => typeof value === "string" && /^0x(?:[0-9a-f]{2})+$/.test(value),
  "0x-prefixed even-length lowercase hex",
);

const compiledContractSchema = z.object({
  abi: z.array(z.record(z.string(), z.unknown())),
  bytecode: bytecodeSchema,
});

export const contractsArtifactSchema = z.object({
  compiler: z.string(),
  settings: z.record(z.string(), z.unknown()),
  sourceSha256: z.string().regex(/^[0-9a-f]{64}$/),
  contracts: z.object({
    TestToken: compiledContractSchema,
    RevertingReceiver: compiledContractSchema,
    Forwarder: compiledContractSchema,
    RevertingRelay: compiledContractSchema,
  }),
});
export type ContractsArtifact = z.infer<typeof contractsArtifactSchema>;

let cached: ContractsArtifact | undefined;

/** The checked-in artifact, read and validated once per process. */
export function loadContractsArtifact(): ContractsArtifact {
  cached ??= contractsArtifactSchema.parse(JSON.parse(readFileSync(CONTRACTS_ARTIFACT_URL, "utf8")));
  return cached;
}
