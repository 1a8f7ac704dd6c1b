import { type ChildProcess, spawn } from "node:child_process";
import {
  type Account,
  type Chain,
  createClient,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_ACCOUNTS, ANVIL_DEPLOYER, type AnvilAccount } from "./anvil-accounts.ts";
import { anvilBinaryPath } from "./anvil-binary.ts";

export interface StartAnvilOptions {
  /** 0 (default): anvil picks a free port and we read it from its banner (no race with other tests). */
  port?: number;
  /** Interval mining (local sandbox); by default anvil mines one block per transaction (automine). */
  blockTimeSeconds?: number;
  /** Default 31337 (anvil's own). */
  chainId?: number;
}

/**
 * A transaction anvil_reorg puts into the new branch: raw signed bytes or a request from an
 * unlocked dev account. Give `gas` for anything but a plain transfer: anvil does not estimate
 * here, and a contract call left at its default runs out of gas (mined, status 0, no logs).
 */
export interface ReorgTransaction {
  transaction: Hex | { from: Hex; to: Hex; value?: Hex; data?: Hex; gas?: Hex };
  /** 0 = the first block of the new branch. */
  blockOffset: number;
}

export interface AnvilNode {
  readonly url: string;
  readonly port: number;
  readonly chainId: number;
  readonly chain: Chain;
  /** Funded dev accounts; `accounts[0]` deploys the test tokens and holds their supply. */
  readonly accounts: readonly AnvilAccount[];
  readonly publicClient: PublicClient<Transport, Chain>;
  /** Signs locally with accounts[0]. */
  readonly walletClient: WalletClient<Transport, Chain, Account>;
  readonly testClient: TestClient<"anvil", Transport, Chain>;
  blockNumber(): Promise<number>;
  blockHash(height: number): Promise<Hex>;
  /** Mines `blocks` (default 1) blocks at once (anvil_mine). */
  mine(blocks?: number): Promise<void>;
  /**
   * Replaces the last `depth` blocks with a new branch of the same length (anvil_reorg): every
   * block hash from `head - depth + 1` changes; transactions of the old blocks are dropped unless
   * passed again in `transactions` (at a chosen block of the new branch).
   */
  reorg(depth: number, transactions?: readonly ReorgTransaction[]): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(snapshotId: Hex): Promise<void>;
  setAutomine(enabled: boolean): Promise<void>;
  /** Kills the process (SIGTERM, then SIGKILL) and waits for it to exit; idempotent. */
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 20_000;
const LISTENING = /Listening on (?:[\d.]+|\[[^\]]*\]):(\d+)/;

/** Every anvil this process started and has not stopped: killed if the process exits first. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const process of running) process.kill("SIGKILL");
  });
}

/** Spawns anvil on 127.0.0.1, waits until it answers JSON-RPC and returns its handle. */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilNode> {
  const chainId = options.chainId ?? 31337;
  const args = ["--host", "127.0.0.1", "--port", String(options.port ?? 0), "--chain-id", String(chainId)];
  if (options.blockTimeSeconds !== undefined) args.push("--block-time", String(options.blockTimeSeconds));
  const child = spawn(anvilBinaryPath(), args, { stdio: ["ignore", "pipe", "pipe"] });
  killOnExit(child);
  let port: number;
  try {
    port = await listeningPort(child);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }

  const url = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: chainId,
    name: `anvil-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  // No retries: a test that stops the node must see the failure at once. Seeded ranges return
  // tens of MB of logs, beyond viem's 10 MB default.
  const transport = http(url, { retryCount: 0, timeout: 60_000, maxResponseBodySize: 512 * 1024 * 1024 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const walletClient = createWalletClient({
    chain,
    transport,
    account: privateKeyToAccount(ANVIL_DEPLOYER.privateKey),
    pollingInterval: 50,
  });
  const testClient = createTestClient({ chain, transport, mode: "anvil", pollingInterval: 50 });
  // Untyped requests, for anvil methods viem has no action for (anvil_reorg).
  const rpc = createClient({ chain, transport });
  await publicClient.getChainId();

  return {
    url,
    port,
    chainId,
    chain,
    accounts: ANVIL_ACCOUNTS,
    publicClient,
    walletClient,
    testClient,
    blockNumber: async () => Number(await publicClient.getBlockNumber({ cacheTime: 0 })),
    blockHash: async (height) => {
      const block = await publicClient.getBlock({ blockNumber: BigInt(height) });
      return block.hash;
    },
    mine: (blocks = 1) => testClient.mine({ blocks }),
    reorg: async (depth, transactions = []) => {
      await rpc.request<{ Parameters: unknown[]; ReturnType: unknown }>({
        method: "anvil_reorg",
        params: [depth, transactions.map((t) => [t.transaction, t.blockOffset])],
      });
    },
    snapshot: () => testClient.snapshot(),
    revert: (id) => testClient.revert({ id }),
    setAutomine: (enabled) => testClient.setAutomine(enabled),
    stop: () => stopProcess(child),
  };
}

/** Reads anvil's banner until it prints the port it listens on. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`anvil did not start in ${STARTUP_TIMEOUT_MS} ms:\n${output.slice(-2000)}`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = LISTENING.exec(output);
      if (match?.[1]) {
        cleanup();
        // Keep draining: anvil logs every request, and a full pipe would block it.
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(Number(match[1]));
      }
    };
    const onExit = (code: number | null) =>
      fail(new Error(`anvil exited with ${code} at start:\n${output.slice(-2000)}`));
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      child.off("error", fail);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
    child.once("error", fail);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const killTimer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(killTimer);
}
