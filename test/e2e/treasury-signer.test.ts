import { tokenBalance } from "@mp/test-nodes/evm";
import { getAddress, type Hex } from "viem";
import { english, generateMnemonic } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { freshAddress, startEvmTreasury } from "../../packages/treasury/test/support/evm-treasury.ts";
import { runCli, startRole } from "../cli/run-cli.ts";
import { eventually } from "../support/api-harness.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { useStarted } from "../support/use-started.ts";
import { signerEnv, stopProcess } from "./several-processes.ts";

const TIMEOUT_MS = 240_000;

/**
 * `payments serve --role signer` as its own node process (not the tsx CLI, which forks: the signal
 * seen would be tsx's, not the signer's). `exited`: the signal (or code) it ended with.
 */
async function startSigner(env: Record<string, string | undefined>) {
  const started = await startRole(["--role", "signer"], env, /signer started/);
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    started.child.once("exit", (code, signal) => done(signal ?? code)),
  );
  return { child: started.child, output: started.output, exited };
}

describe("the signer role end to end: operator sends land on anvil exactly once, kill -9 included", () => {
  const database = useTestDatabase();
  const dir = useTempDir("mpsigner-");
  const mnemonic = generateMnemonic(english, 256);
  // Interval mining: blocks keep coming, so sends reach their confirmations on their own. The
  // treasury, of a fresh mnemonic only the signer process is given, holds 10 ETH and 1,000 USDC.
  const h = useStarted(
    "anvil and the treasury",
    () =>
      startEvmTreasury(database.db, { mnemonic, blockTimeSeconds: 1, eth: 10n * 10n ** 18n, usdc: 1_000n * 10n ** 6n }),
    (started) => started.stop(),
  );
  let env: Record<string, string | undefined>;

  beforeAll(() => {
    env = signerEnv(database, dir, { BASE: h.baseChain({ confirmations: 2, pollIntervalMs: 200 }) }, mnemonic);
  });

  const send = (args: string[]) => runCli(["treasury", "send", "--chain", "BASE", "--json", ...args], env);

  it(
    "treasury send --wait lands a USDC and an ETH transfer; balances show what the chain holds",
    async () => {
      const signer = await startSigner(env);
      try {
        const to = freshAddress();
        const token = await send(["--asset", "USDC", "--to", to, "--amount", "12.5", "--key", "e2e-usdc", "--wait"]);
        expect(token.code, token.stderr).toBe(0);
        const landed = JSON.parse(token.stdout);
        expect(landed).toMatchObject({ state: "confirmed", amount: "12.5", created: true });
        expect(landed.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(await tokenBalance(h.node, h.usdc, to)).toBe(12_500000n);
        const receipt = await h.node.publicClient.getTransactionReceipt({ hash: landed.tx_hash });
        expect(receipt.status).toBe("success");
        expect(getAddress(receipt.from)).toBe(h.treasury);

        const native = await send(["--asset", "ETH", "--to", to, "--amount", "0.25", "--key", "e2e-eth", "--wait"]);
        expect(native.code, native.stderr).toBe(0);
        expect(JSON.parse(native.stdout)).toMatchObject({ state: "confirmed" });
        expect(await h.node.publicClient.getBalance({ address: to })).toBe(25n * 10n ** 16n);

        // The same key again: the same send, nothing more on chain.
        const again = await send(["--asset", "ETH", "--to", to, "--amount", "0.25", "--key", "e2e-eth"]);
        expect(JSON.parse(again.stdout)).toMatchObject({ id: JSON.parse(native.stdout).id, created: false });
        expect(await h.node.publicClient.getTransactionCount({ address: h.treasury })).toBe(2);

        // The signer's stored balances catch up with the chain's.
        // Both figures: a poll made between the two sends has the USDC figure already, not the ETH one.
        const chainUsdc = await tokenBalance(h.node, h.usdc, h.treasury);
        const chainEth = await h.node.publicClient.getBalance({ address: h.treasury });
        const balances = await eventually(
          async () => {
            const out = await runCli(["treasury", "balances", "--json"], env);
            const rows = out.stdout
              .trim()
              .split("\n")
              .filter((line) => line !== "")
              .map((line) => JSON.parse(line) as { asset: string; amount_raw: string });
            const of = (asset: string) => rows.find((b) => b.asset === asset)?.amount_raw;
            return of("USDC") === chainUsdc.toString() && of("ETH") === chainEth.toString() ? rows : undefined;
          },
          30_000,
          1_000,
        );
        expect(balances.map((b) => b.asset)).toEqual(["ETH", "USDC"]);
      } finally {
        await stopProcess(signer.child);
      }
    },
    TIMEOUT_MS,
  );

  const windows = {
    signed: "signed, before the transaction storing it commits",
    stored: "signed and stored, before its broadcast",
    broadcast: "broadcast, before that is recorded",
    mined: "mined deep enough, before its confirmation is recorded",
  } as const;
  for (const [stage, window] of Object.entries(windows) as Array<[keyof typeof windows, string]>) {
    it(
      `kill -9 of the signer after the attempt is ${window}: after a restart exactly one transfer lands`,
      async () => {
        const nonceBefore = await h.node.publicClient.getTransactionCount({ address: h.treasury });
        const signer = await startSigner({ ...env, PAYMENTS_TEST_HALT_AFTER: stage });
        const to = freshAddress();
        const key = `crash-${stage}`;
        const asked = await send(["--asset", "USDC", "--to", to, "--amount", "3", "--key", key]);
        expect(asked.code, asked.stderr).toBe(0);
        const id = JSON.parse(asked.stdout).id as string;
        // The signer SIGKILLs itself at the stage: no cleanup ran.
        expect(await signer.exited).toBe("SIGKILL");
        expect(signer.output()).toContain(`"stage":"${stage}"`);

        const attempts = async () =>
          (
            await database.db.query<{ state: string; tx_hash: string }>(
              `SELECT a.state, a.tx_hash FROM treasury_attempts a
                 JOIN treasury_attempt_sends s ON s.attempt_id = a.id WHERE s.send_id = $1`,
              [id],
            )
          ).rows;
        const onNode = async (hash: string | undefined) =>
          (await h.node.publicClient.getTransaction({ hash: hash as Hex }).catch(() => null)) ?? undefined;
        const stored = await attempts();
        if (stage === "signed") {
          // Signed, never committed: nothing stored (its nonce allocation rolled back), nothing sent.
          expect(stored).toEqual([]);
        } else if (stage === "mined") {
          // In a block deep enough, its confirmation not recorded.
          expect(stored.length).toBe(1);
          expect(["broadcast", "mined"]).toContain(stored[0]?.state);
          expect(
            await h.node.publicClient.getTransactionReceipt({ hash: stored[0]?.tx_hash as Hex }).catch(() => null),
          ).not.toBeNull();
        } else {
          // Stored before anything left: one attempt, still "signed" in the database in both windows.
          expect(stored.map((a) => a.state)).toEqual(["signed"]);
          if (stage === "stored") {
            // Not broadcast: the node never saw it.
            expect(await onNode(stored[0]?.tx_hash)).toBeUndefined();
          } else {
            // Broadcast: the node has it (it may be mined already) though the database does not know.
            await eventually(() => onNode(stored[0]?.tx_hash), 10_000);
          }
        }

        const restarted = await startSigner(env);
        try {
          const waited = await send(["--asset", "USDC", "--to", to, "--amount", "3", "--key", key, "--wait"]);
          expect(waited.code, waited.stderr).toBe(0);
          const landed = await attempts();
          expect(JSON.parse(waited.stdout)).toMatchObject({
            id,
            state: "confirmed",
            tx_hash: landed[0]?.tx_hash,
            created: false,
          });
          // Exactly one transfer: the stored attempt, rebroadcast or found, never signed again (one
          // signed after the restart where none was stored).
          expect(await tokenBalance(h.node, h.usdc, to)).toBe(3_000000n);
          expect(landed.length).toBe(1);
          if (stage !== "signed") expect(landed[0]?.tx_hash).toBe(stored[0]?.tx_hash);
          expect(await h.node.publicClient.getTransactionCount({ address: h.treasury })).toBe(nonceBefore + 1);
        } finally {
          await stopProcess(restarted.child);
        }
      },
      TIMEOUT_MS,
    );
  }
});
