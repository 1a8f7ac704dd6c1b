import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSanctionsList, SANDBOX_SANCTIONED_ADDRESSES } from "@mp/providers";
import { beforeAll, describe, expect, it } from "vitest";
import { writeChainsConfig } from "../support/chains-config-file.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { jsonLines, runCli, runCliOk } from "./run-cli.ts";

/** Several `payments` processes, each starting tsx (seconds each on a loaded 2-core machine). */
const CLI_TEST_TIMEOUT_MS = 300_000;

/** The real OFAC lists (../shared/fixtures/sanctions, SOURCES.md), read where they live. */
const LISTS = fileURLToPath(new URL("../../../shared/fixtures/sanctions/", import.meta.url));
const haveLists = existsSync(LISTS);
if (!haveLists) console.warn(`skipping payments sanctions: ${LISTS} is absent (../shared not beside the repo)`);

describe.skipIf(!haveLists)("payments treasury send to a sanctioned address; payments sanctions matches|status", () => {
  const database = useTestDatabase();
  const dir = useTempDir("mpsanctions-");
  let env: Record<string, string | undefined>;

  beforeAll(() => {
    // A chain nothing answers on: nothing could leave anyway; the refusal comes before any store.
    const chainsFile = writeChainsConfig(dir, { BASE: { rpcUrl: "http://127.0.0.1:9" } });
    env = {
      DATABASE_URL: database.connectionString,
      DATA_DIR: join(dir, "data"),
      CHAINS_CONFIG: chainsFile,
      SANCTIONS_LIST_PATH: LISTS,
    };
  });

  it(
    "refuses a treasury send to a real OFAC address and to the sandbox's magic one, and lists both matches",
    async () => {
      const eth = parseSanctionsList("ETH", readFileSync(join(LISTS, "sanctioned_addresses_ETH.txt"), "utf8"));
      const listed = eth[0];
      const [magic] = SANDBOX_SANCTIONED_ADDRESSES;
      if (!listed || !magic) throw new Error("a listed address and the magic one");
      const send = (to: string, key: string) =>
        runCli(
          ["treasury", "send", "--chain", "BASE", "--asset", "ETH", "--to", to, "--amount", "0.1", "--key", key],
          env,
        );
      for (const [to, key, list] of [
        [listed, "s-1", "sanctioned_addresses_ETH.txt"],
        [magic, "s-2", "sandbox"],
      ] as const) {
        const refused = await send(to, key);
        expect(refused.code, refused.stderr).toBe(1);
        expect(refused.stderr.trim()).toBe(`payments: --to: ${to} is on a sanctions list (${list}); it cannot be paid`);
      }
      const sends = await database.db.query("SELECT count(*)::int AS n FROM treasury_sends");
      expect(sends.rows).toEqual([{ n: 0 }]);

      const matches = await runCli(["sanctions", "matches", "--json"], env);
      expect(matches.code, matches.stderr).toBe(0);
      expect(jsonLines(matches.stdout)).toMatchObject([
        { context: "treasury_send", address: magic, list: "sandbox", chain: "BASE", reference: "s-2" },
        {
          context: "treasury_send",
          address: listed,
          list: "sanctioned_addresses_ETH.txt",
          chain: "BASE",
          reference: "s-1",
        },
      ]);
      const text = await runCliOk(["sanctions", "matches", "--context", "deposit"], env);
      expect(text.trim()).toBe("0 matches");

      const status = await runCliOk(["sanctions", "status"], env);
      expect(status).toMatch(
        /^screening on: \d+ addresses from sanctioned_addresses_ARB\.txt, .*sanctioned_addresses_XBT\.txt\n$/,
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
