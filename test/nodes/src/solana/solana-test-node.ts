import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { z } from "zod";
import { serveTestNode, type TestChainNode, type TestToken } from "../shared/served-node.ts";
import { associatedTokenAddress, isAddress, Signer } from "./keys.ts";
import type { TransactionVersion } from "./message-encoding.ts";
import {
  PROGRAM_ACCOUNT_LAMPORTS,
  RENT_EXEMPT_MINT,
  RENT_EXEMPT_TOKEN_ACCOUNT,
  ROUTER_PROGRAM_LAMPORTS,
  SLOT_MS,
} from "./programs.ts";
import { callRpcMethod, type RpcAnswer, type RpcContext } from "./rpc-methods.ts";
import { type ReorgOptions, SolanaChain } from "./solana-chain.ts";
import { buildTransaction, type TransferSpec } from "./transaction-builder.ts";

export interface SolanaTestNodeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Produce a block every this many ms (local sandbox); without it the caller mines. */
  blockIntervalMs?: number;
  /** Seed of every key, mint and hash: the same seed gives the same addresses. */
  seed?: string;
  /** SPL tokens the node mints at genesis (default USDC and USDT, 6 decimals). */
  tokens?: ReadonlyArray<{ asset: string; decimals: number }>;
  /**
   * As agave's `--enable-rpc-transaction-history` (on by default here, as on every RPC provider):
   * off, getBlock and getSignatureStatuses with searchTransactionHistory answer -32011.
   */
  transactionHistory?: boolean;
}

/** Who signs and pays: a web3.js Keypair (or anything with its 64-byte secretKey). Default: the node faucet. */
export interface SendOptions {
  from?: { secretKey: Uint8Array };
  /** Message version (default legacy). */
  version?: TransactionVersion;
  /** Adds a failing instruction: the transaction lands on chain with `meta.err` set. */
  fail?: boolean;
}

/** One of the node's SPL tokens; `address` is the mint address. */
export type TestTokenInfo = TestToken;

export interface SolanaTestNode extends TestChainNode<ReorgOptions> {
  /** The program that moves SOL by CPI in `transferViaProgram` (its transfer is an inner instruction). */
  readonly routerProgramId: string;
  /** The next `count` slots will hold no block (skipped by their leaders). */
  skipSlots(count?: number): void;
  /** Purges every block below `slot` from the ledger (a validator's ledger size limit). */
  purgeBelow(slot: number): void;
  /** What getGenesisHash answers: the node's own cluster, derived from the seed. */
  readonly genesisHash: string;
  /** Queues a system transfer of lamports; returns the signature (lands at the next mine). */
  transfer(to: string, lamports: bigint, options?: SendOptions): string;
  /** Queues SOL moved by a program (CPI): the system transfer is an inner instruction. */
  transferViaProgram(to: string, lamports: bigint, options?: SendOptions): string;
  /** Queues transferChecked into the owner's associated token account (created if missing). */
  transferToken(to: string, assetOrMint: string, amount: bigint, options?: SendOptions): string;
  /** Queues one transaction holding several transfers (one instruction each). */
  send(specs: readonly TransferSpec[], options?: SendOptions): string;
  /** Queues a transfer that fails on chain (the instruction is there, `meta.err` is set). */
  failTransfer(to: string, lamports: bigint, options?: SendOptions): string;
  balance(address: string): bigint;
  tokenBalance(owner: string, assetOrMint: string): bigint;
  associatedTokenAddress(owner: string, assetOrMint: string): string;
  blockhash(slot: number): string | undefined;
  /**
   * While on, `sendTransaction` answers as usual (preflight included) but the transaction never
   * reaches a leader: it is lost, as when a validator drops it under load, and can only land if it
   * is sent again before its blockhash expires.
   */
  dropIncoming(drop: boolean): void;
  /** Transactions queued for the next block. */
  pendingCount(): number;
  /** The signed transaction (wire bytes) and the slot it landed in, if it did. */
  transaction(signature: string): { slot: number; wire: Uint8Array; failed: boolean } | undefined;
}

const DEFAULT_TOKENS = [
  { asset: "USDC", decimals: 6 },
  { asset: "USDT", decimals: 6 },
];
/** 500 million SOL: beyond 2^53 lamports, so u64 amounts are exercised end to end. */
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const FAUCET_TOKEN_UNITS = 10n ** 15n;
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const testTransferSchema = z.object({
  to: z.string().refine(isAddress, "not a Solana address"),
  mint: z.string(),
  amount: z.string().regex(/^[1-9]\d*$/, "a positive integer in base units"),
});

/**
 * A Solana JSON-RPC node for tests and the local sandbox, on 127.0.0.1. It keeps real account
 * state (lamports, SPL token accounts), signs real transactions with Ed25519 keys, derives real
 * associated token accounts, and serves blocks in the jsonParsed shape of the public RPC. Blocks
 * are produced by `mine()` (or every `blockIntervalMs`); `headers`/`scan` see them immediately.
 *
 * As on the real cluster, a transfer that would leave a new wallet below the rent-exempt minimum
 * (890,880 lamports) fails with InsufficientFundsForRent.
 */
export async function startSolanaTestNode(options: SolanaTestNodeOptions = {}): Promise<SolanaTestNode> {
  const seed = options.seed ?? "mp-solana-test-node";
  const faucet = Signer.fromLabel(`${seed}:faucet`);
  const leader = Signer.fromLabel(`${seed}:leader`);
  const routerProgramId = Signer.fromLabel(`${seed}:router-program`).address;
  const tokens: TestTokenInfo[] = (options.tokens ?? DEFAULT_TOKENS).map((token) => ({
    asset: token.asset,
    address: Signer.fromLabel(`${seed}:mint:${token.asset}`).address,
    decimals: token.decimals,
  }));
  const decimalsByMint = new Map(tokens.map((token) => [token.address, token.decimals]));

  const chain = new SolanaChain(
    seed,
    leader,
    {
      routerProgramId,
      decimalsOf: (mint) => decimalsByMint.get(mint) ?? 0,
      isMint: (address) => decimalsByMint.has(address),
    },
    Math.floor(Date.now() / 1000),
    SLOT_MS,
    (state) => {
      for (const [program, lamports] of Object.entries(PROGRAM_ACCOUNT_LAMPORTS)) state.setLamports(program, lamports);
      state.setLamports(routerProgramId, ROUTER_PROGRAM_LAMPORTS);
      state.setLamports(faucet.address, FAUCET_LAMPORTS);
      for (const token of tokens) {
        state.setLamports(token.address, RENT_EXEMPT_MINT);
        const treasury = associatedTokenAddress(faucet.address, token.address);
        state.setLamports(treasury, RENT_EXEMPT_TOKEN_ACCOUNT);
        state.setTokenAccount(treasury, { mint: token.address, owner: faucet.address, amount: FAUCET_TOKEN_UNITS });
      }
    },
  );

  const mintOf = (assetOrMint: string): string => {
    const token = tokens.find((t) => t.asset === assetOrMint || t.address === assetOrMint);
    if (!token) throw new RangeError(`the test node has no token ${assetOrMint}`);
    return token.address;
  };
  // Deriving a node:crypto key costs more than signing with it: one Signer per sending keypair.
  const signers = new WeakMap<object, Signer>();
  const signerFor = (from: { secretKey: Uint8Array }): Signer => {
    let signer = signers.get(from);
    if (!signer) {
      signer = Signer.fromSecretKey(from.secretKey);
      signers.set(from, signer);
    }
    return signer;
  };

  const send = (specs: readonly TransferSpec[], sendOptions: SendOptions = {}): string => {
    const signer = sendOptions.from ? signerFor(sendOptions.from) : faucet;
    const tx = buildTransaction(
      signer,
      specs,
      {
        routerProgramId,
        recentBlockhash: chain.recentBlockhash(),
        decimalsOf: (mint) => decimalsByMint.get(mint) ?? 0,
        tokenAccountKnown: (address) => chain.state.tokenAccount(address) !== undefined,
      },
      {
        ...(sendOptions.version === undefined ? {} : { version: sendOptions.version }),
        fail: sendOptions.fail ?? false,
      },
    );
    chain.enqueue(tx);
    return tx.signature;
  };
  let dropping = false;
  const rpcContext: RpcContext = {
    chain,
    leader: leader.address,
    airdrop: (to, lamports) => send([{ kind: "sol", to, lamports }]),
    routerProgramId,
    tokenDecimals: (mint) => decimalsByMint.get(mint),
    dropping: () => dropping,
    transactionHistory: options.transactionHistory ?? true,
  };

  const mine = (count = 1) => chain.mine(count);

  const server = createServer((req, res) => {
    handleHttp(req, res, rpcContext, (body) => {
      const parsed = testTransferSchema.safeParse(body);
      if (!parsed.success) return { status: 400, body: { error: parsed.error.issues[0]?.message ?? "invalid body" } };
      try {
        const signature = send([
          { kind: "token", mint: mintOf(parsed.data.mint), to: parsed.data.to, amount: BigInt(parsed.data.amount) },
        ]);
        return { status: 200, body: { signature } };
      } catch (error) {
        return { status: 400, body: { error: error instanceof Error ? error.message : String(error) } };
      }
    });
  });
  const served = await serveTestNode(server, options, () => mine(1));

  return {
    ...served,
    tokens,
    faucetAddress: faucet.address,
    routerProgramId,
    head: () => chain.tip().slot,
    mine,
    skipSlots: (count = 1) => chain.skipSlots(count),
    purgeBelow: (slot) => chain.purgeBelow(slot),
    genesisHash: chain.genesisHash(),
    transfer: (to, lamports, sendOptions) => send([{ kind: "sol", to, lamports }], sendOptions),
    transferViaProgram: (to, lamports, sendOptions) => send([{ kind: "solViaProgram", to, lamports }], sendOptions),
    transferToken: (to, assetOrMint, amount, sendOptions) =>
      send([{ kind: "token", mint: mintOf(assetOrMint), to, amount }], sendOptions),
    send,
    failTransfer: (to, lamports, sendOptions) => send([{ kind: "sol", to, lamports }], { ...sendOptions, fail: true }),
    reorg: (depth, reorgOptions) => chain.reorg(depth, reorgOptions),
    dropIncoming: (drop) => {
      dropping = drop;
    },
    pendingCount: () => chain.pendingCount(),
    balance: (address) => chain.state.lamports(address),
    tokenBalance: (owner, assetOrMint) =>
      chain.state.tokenAccount(associatedTokenAddress(owner, mintOf(assetOrMint)))?.amount ?? 0n,
    associatedTokenAddress: (owner, assetOrMint) => associatedTokenAddress(owner, mintOf(assetOrMint)),
    blockhash: (slot) => chain.block(slot)?.blockhash,
    transaction: (signature) => {
      const entry = chain.transaction(signature);
      return entry && { slot: entry.slot, wire: entry.included.source.wire, failed: entry.included.failed };
    },
  };
}

type ControlHandler = (body: unknown) => { status: number; body: unknown };

function handleHttp(req: IncomingMessage, res: ServerResponse, context: RpcContext, control: ControlHandler): void {
  if (req.method !== "POST") {
    respond(res, 405, [JSON.stringify({ error: "POST only" })]);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on("end", () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      respond(res, 200, envelope({ error: { code: -32700, message: "Parse error" } }, null));
      return;
    }
    if (req.url === "/_test/transfer") {
      const answer = control(body);
      respond(res, answer.status, [JSON.stringify(answer.body)]);
      return;
    }
    if (!Array.isArray(body)) {
      respond(res, 200, answerRequest(context, body));
    } else if (body.length === 0) {
      respond(res, 200, envelope({ error: { code: -32600, message: "Invalid request" } }, null));
    } else {
      const parts: Array<string | Buffer> = ["["];
      body.forEach((request, i) => {
        if (i > 0) parts.push(",");
        parts.push(...answerRequest(context, request));
      });
      parts.push("]");
      respond(res, 200, parts);
    }
  });
}

const requestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.number(), z.string(), z.null()]),
  method: z.string(),
  params: z.unknown().optional(),
});

function answerRequest(context: RpcContext, request: unknown): Array<string | Buffer> {
  const parsed = requestSchema.safeParse(request);
  if (!parsed.success) return envelope({ error: { code: -32600, message: "Invalid request" } }, null);
  return envelope(callRpcMethod(context, parsed.data.method, parsed.data.params), parsed.data.id);
}

/** The JSON-RPC response, as parts so a cached block is written without copying it. */
function envelope(answer: RpcAnswer, id: number | string | null): Array<string | Buffer> {
  if ("raw" in answer) return ['{"jsonrpc":"2.0","result":', answer.raw, `,"id":${JSON.stringify(id)}}`];
  if ("error" in answer) return [JSON.stringify({ jsonrpc: "2.0", error: answer.error, id })];
  return [JSON.stringify({ jsonrpc: "2.0", result: answer.result, id })];
}

function respond(res: ServerResponse, status: number, parts: ReadonlyArray<string | Buffer>): void {
  const length = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
  res.writeHead(status, { "content-type": "application/json", "content-length": length });
  for (const part of parts) res.write(part);
  res.end();
}
