import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { CHAIN_IDS } from "@mp/core";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startService, waitForExit } from "../cli/run-cli.ts";
import { eventually } from "../support/api-harness.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";

const TIMEOUT_MS = 240_000;

/**
 * `pnpm start` (role all, no CHAINS_CONFIG): the signer generates the sandbox treasury mnemonic,
 * records the treasury's addresses on the ten local chains and funds them from the chains' faucets,
 * so an operator's send works from the first start.
 */
describe("the local sandbox's treasury", () => {
  const database = useTestDatabase({ migrate: false });
  const dir = useTempDir("mptreasurybox-");
  let service: Awaited<ReturnType<typeof startService>>;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    env = {
      DATA_DIR: join(dir, "data"),
      DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined,
    };
    service = await startService(["--role", "all"], { ...env, PORT: "0", LOG_LEVEL: "info" });
  }, TIMEOUT_MS);
  afterAll(async () => {
    if (!service) return;
    service.child.kill("SIGTERM");
    await waitForExit(service.child, 30_000);
  });

  it(
    "is funded on every chain at start, and an operator's USDC send on BASE confirms",
    async () => {
      const addresses = await runCli(["treasury", "addresses", "--json"], env);
      expect(addresses.code, addresses.stderr).toBe(0);
      const listed = addresses.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { chain: string; purpose: string });
      expect(listed.map((a) => a.chain).sort()).toEqual([...CHAIN_IDS].sort());

      // Every chain's every asset got its funding transfer (native coin and tokens).
      await eventually(async () => {
        const funded = new Set(
          [
            ...service
              .output()
              .matchAll(
                /"chain":"(\w+)","asset":"[\w.]+","amount":"\d+","txHash":"\w+","msg":"sandbox treasury funded"/g,
              ),
          ].map((m) => m[1]),
        );
        return CHAIN_IDS.every((chain) => funded.has(chain)) ? true : undefined;
      }, 60_000);
      expect(service.output()).not.toContain("sandbox treasury funding failed");

      // The signer's balances of the chains it has a sender for show the funding.
      const baseUsdc = async () => {
        const out = await runCli(["treasury", "balances", "--json"], env);
        return out.stdout
          .trim()
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as { chain: string; asset: string; amount: string })
          .find((b) => b.chain === "BASE" && b.asset === "USDC")?.amount;
      };
      await eventually(async () => ((await baseUsdc()) === "100000" ? true : undefined), 60_000, 1_000);

      const to = getAddress(`0x${randomBytes(20).toString("hex")}`);
      const sent = await runCli(
        [
          "treasury",
          "send",
          "--chain",
          "BASE",
          "--asset",
          "USDC",
          "--to",
          to,
          "--amount",
          "42",
          "--key",
          "box-1",
          "--json",
          "--wait",
        ],
        env,
      );
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ state: "confirmed", amount: "42", to });
      // Polled every 10 s by the signer.
      await eventually(async () => ((await baseUsdc()) === "99958" ? true : undefined), 30_000, 1_000);
    },
    TIMEOUT_MS,
  );
});
