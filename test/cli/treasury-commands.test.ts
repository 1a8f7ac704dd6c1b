import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTreasuryKeys } from "@mp/custody";
import { storeTreasuryBalances } from "@mp/treasury";
import { english, generateMnemonic } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { writeChainsConfig } from "../support/chains-config-file.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { jsonLines, runCli, runCliOk, startRole, startService, waitForExit } from "./run-cli.ts";

/** Several `payments` processes per test, each starting tsx (seconds each on a loaded 2-core machine) and opening the database. */
// About twenty CLI processes per test: each is ~0.5 s of CPU, but 15 s or more of wall time at load 30.
const CLI_TEST_TIMEOUT_MS = 900_000;

/** Addresses of another seed, one per family, as a recipient would have them (regtest for Bitcoin). */
const recipients = createTreasuryKeys(generateMnemonic(english, 256), {
  bitcoinNetwork: "regtest",
  schemes: KEY_SCHEMES,
});

describe("payments treasury: addresses, send, pending, balances; the signer alone reads TREASURY_MNEMONIC", () => {
  const database = useTestDatabase();
  const dir = useTempDir("mptreasury-");
  let env: Record<string, string | undefined>;

  beforeAll(() => {
    // Four chains, one per family, at a port nothing answers on: no send can leave, so sends stay
    // open for `pending`, whichever family senders this build has.
    const chainsFile = writeChainsConfig(dir, {
      BASE: {
        rpcUrl: "http://127.0.0.1:9",
        tokens: [{ asset: "USDC", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6 }],
      },
      BITCOIN: { rpcUrl: "http://127.0.0.1:9", network: "regtest" },
      SOLANA: { rpcUrl: "http://127.0.0.1:9", network: "regtest" },
      TRON: { rpcUrl: "http://127.0.0.1:9", network: "regtest" },
    });
    env = { DATABASE_URL: database.connectionString, DATA_DIR: join(dir, "data"), CHAINS_CONFIG: chainsFile };
  });

  it(
    "the api role starts without reading TREASURY_MNEMONIC_FILE; the signer refuses it, records the treasury's addresses with another, and refuses a second treasury or the master mnemonic",
    async () => {
      const missing = join(dir, "no-such-treasury-mnemonic");
      const api = await startService(["--role", "api"], { ...env, PORT: "0", TREASURY_MNEMONIC_FILE: missing });
      try {
        expect((await fetch(`${api.url}/ready`)).status).toBe(200);
      } finally {
        api.child.kill("SIGTERM");
        expect(await waitForExit(api.child)).toBe(0);
      }
      const refused = await runCli(["serve", "--role", "signer"], { ...env, TREASURY_MNEMONIC_FILE: missing });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split("\n")).toEqual([
        `payments: configuration error: TREASURY_MNEMONIC_FILE: cannot read file ${missing}`,
      ]);

      const none = await runCli(["treasury", "addresses", "--json"], env);
      expect(none.code, none.stderr).toBe(0);
      expect(none.stdout).toBe("");
      // Every family's send path, from the registry's key schemes.
      expect(none.stderr).toContain(
        "evm m/44'/60'/0'/0/0, bitcoin m/84'/0'/0'/0/0, solana m/44'/501'/0'/0', tron m/44'/195'/0'/0/0 (on mainnet",
      );

      const mnemonic = generateMnemonic(english, 256);
      const keys = createTreasuryKeys(mnemonic, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
      const signer = await startRole(["--role", "signer"], { ...env, TREASURY_MNEMONIC: mnemonic }, /signer started/);
      try {
        const listed = await runCliOk(["treasury", "addresses", "--json"], env);
        const rows = jsonLines(listed);
        expect(rows).toEqual([
          { chain: "BASE", purpose: "send", path: "m/44'/60'/0'/0/0", address: keys.key("evm").address },
          { chain: "BITCOIN", purpose: "send", path: "m/84'/1'/0'/0/0", address: keys.key("bitcoin").address },
          { chain: "SOLANA", purpose: "send", path: "m/44'/501'/0'/0'", address: keys.key("solana").address },
          { chain: "TRON", purpose: "send", path: "m/44'/195'/0'/0/0", address: keys.key("tron").address },
        ]);
        expect(signer.output()).not.toContain(mnemonic.split(" ").slice(0, 3).join(" "));
      } finally {
        signer.child.kill("SIGTERM");
        expect(await waitForExit(signer.child)).toBe(0);
      }

      // The database's treasury is that mnemonic's: another one would sign for addresses it does not hold.
      const other = await runCli(["serve", "--role", "signer"], {
        ...env,
        TREASURY_MNEMONIC: generateMnemonic(english, 256),
      });
      expect(other.code).toBe(1);
      expect(other.stderr.trim().split("\n")).toEqual([
        `payments: configuration error: TREASURY_MNEMONIC: this database's BASE treasury sends from ${keys.key("evm").address}, another mnemonic's address; start with the treasury mnemonic it was created with`,
      ]);
      // The sandbox generated the master mnemonic into DATA_DIR: as the treasury's, it is refused.
      const master = readFileSync(join(dir, "data", "master-mnemonic"), "utf8").trim();
      const same = await runCli(["serve", "--role", "signer"], { ...env, TREASURY_MNEMONIC: master });
      expect(same.code).toBe(1);
      expect(same.stderr.trim().split("\n")).toEqual([
        "payments: configuration error: TREASURY_MNEMONIC: is the master mnemonic (MASTER_MNEMONIC); the treasury needs a mnemonic of its own",
      ]);
      expect(same.stderr).not.toContain(master.split(" ")[0] ?? "");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "send stores one request per key (the same key again: the same send; other parameters: refused), checks chain, asset, address and amount, and pending lists it",
    async () => {
      const to = recipients.key("evm").address;
      const send = (args: string[]) => runCli(["treasury", "send", "--json", ...args], env);
      const first = await send(["--chain", "BASE", "--asset", "ETH", "--to", to, "--amount", "0.5", "--key", "op-1"]);
      expect(first.code, first.stderr).toBe(0);
      const stored = JSON.parse(first.stdout);
      expect(stored).toMatchObject({
        chain: "BASE",
        asset: "ETH",
        to,
        amount: "0.5",
        amount_raw: "500000000000000000",
        purpose: "operator",
        idempotency_key: "op-1",
        state: "queued",
        created: true,
      });
      const again = await send(["--chain", "BASE", "--asset", "ETH", "--to", to, "--amount", "0.50", "--key", "op-1"]);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ id: stored.id, created: false });

      const conflict = await send([
        "--chain",
        "BASE",
        "--asset",
        "ETH",
        "--to",
        to,
        "--amount",
        "0.6",
        "--key",
        "op-1",
      ]);
      expect(conflict.code).toBe(1);
      expect(conflict.stderr.trim()).toBe(
        "payments: this idempotency key was used for a send with other parameters; use a new key",
      );

      const refusals: Array<[string[], string]> = [
        [
          ["--chain", "ARBITRUM", "--asset", "ETH", "--to", to, "--amount", "1"],
          "--chain: ARBITRUM is not configured (CHAINS_CONFIG)",
        ],
        [["--chain", "BASE", "--asset", "DOGE", "--to", to, "--amount", "1"], "--asset: BASE assets are ETH, USDC"],
        [
          ["--chain", "BASE", "--asset", "USDC", "--to", recipients.key("tron").address, "--amount", "1"],
          "--to: not a BASE address",
        ],
        [
          ["--chain", "BASE", "--asset", "USDC", "--to", to.toLowerCase().replace(/^0x/, "0x0"), "--amount", "1"],
          "--to: not a BASE address",
        ],
        // A mainnet address on a regtest chain.
        [
          [
            "--chain",
            "BITCOIN",
            "--asset",
            "BTC",
            "--to",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            "--amount",
            "1",
          ],
          "--to: not a BITCOIN address",
        ],
        [["--chain", "SOLANA", "--asset", "SOL", "--to", to, "--amount", "1"], "--to: not a SOLANA address"],
        [
          ["--chain", "BASE", "--asset", "USDC", "--to", to, "--amount", "1.0000001"],
          "--amount: must be a positive decimal with at most 6 decimals for USDC",
        ],
        [
          ["--chain", "BASE", "--asset", "USDC", "--to", to, "--amount", "0"],
          "--amount: must be a positive decimal with at most 6 decimals for USDC",
        ],
        [
          ["--chain", "BASE", "--asset", "USDC", "--to", to, "--amount", "1e3"],
          "--amount: must be a positive decimal with at most 6 decimals for USDC",
        ],
      ];
      // Independent requests (each its own key, each refused before anything is stored): run side by
      // side, as each CLI process spends most of its time starting up.
      const answers = await Promise.all(
        refusals.map(([args]) => send([...args, "--key", `refused-${args.join(" ")}`])),
      );
      refusals.forEach(([args, message], i) => {
        expect(answers[i]?.code, args.join(" ")).toBe(1);
        expect(answers[i]?.stderr.trim()).toBe(`payments: ${message}`);
      });

      // One per family, case-insensitive asset symbols taken as configured.
      for (const [chain, asset, address, amount, raw] of [
        ["BITCOIN", "btc", recipients.key("bitcoin").address, "0.00012345", "12345"],
        ["SOLANA", "SOL", recipients.key("solana").address, "1.5", "1500000000"],
        ["TRON", "TRX", recipients.key("tron").address, "25", "25000000"],
        ["BASE", "USDC", to.toLowerCase(), "12.34", "12340000"],
      ] as const) {
        const ok = await send([
          "--chain",
          chain,
          "--asset",
          asset,
          "--to",
          address,
          "--amount",
          amount,
          "--key",
          `ok-${chain}-${asset}`,
        ]);
        expect(ok.code, ok.stderr).toBe(0);
        expect(JSON.parse(ok.stdout)).toMatchObject({
          chain,
          asset: asset.toUpperCase(),
          to: address,
          amount_raw: raw,
          state: "queued",
        });
      }

      const { rows } = await database.db.query<{ n: string }>("SELECT count(*)::text AS n FROM treasury_sends");
      expect(rows[0]?.n).toBe("5");

      const pending = await runCli(["treasury", "pending", "--json"], env);
      expect(pending.code, pending.stderr).toBe(0);
      const open = jsonLines(pending.stdout);
      expect(open.map((s) => [s.idempotency_key, s.chain, s.amount])).toEqual([
        ["op-1", "BASE", "0.5"],
        ["ok-BITCOIN-btc", "BITCOIN", "0.00012345"],
        ["ok-SOLANA-SOL", "SOLANA", "1.5"],
        ["ok-TRON-TRX", "TRON", "25"],
        ["ok-BASE-USDC", "BASE", "12.34"],
      ]);
      for (const s of open) expect(["queued", "waiting_funds"]).toContain(s.state);
      const text = await runCli(["treasury", "pending"], env);
      expect(text.stdout).toContain(`${stored.id} queued BASE 0.5 ETH to ${to}`);
      expect(text.stdout.trim().split("\n").at(-1)).toBe("5 open sends");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "balances and /metrics show the stored balances, the sends by state and the oldest open send's age",
    async () => {
      await storeTreasuryBalances(database.db, "BASE", [
        { asset: "ETH", amountRaw: 1_250000000000000000n, decimals: 18 },
        { asset: "USDC", amountRaw: 7_000001n, decimals: 6 },
      ]);
      const balances = await runCliOk(["treasury", "balances", "--json"], env);
      const rows = jsonLines(balances);
      expect(rows.map((b) => [b.chain, b.asset, b.amount, b.amount_raw])).toEqual([
        ["BASE", "ETH", "1.25", "1250000000000000000"],
        ["BASE", "USDC", "7.000001", "7000001"],
        // Stored by the signer of the test above: Bitcoin's balance is the UTXOs the indexer recorded
        // (none), read without its node; the other chains' nodes are unreachable here.
        ["BITCOIN", "BTC", "0", "0"],
      ]);

      const api = await startService(["--role", "api"], { ...env, PORT: "0" });
      try {
        const metrics = await (await fetch(`${api.url}/metrics`)).text();
        expect(metrics).toContain('treasury_sends{chain="BASE",state="queued"} 2');
        expect(metrics).toContain('treasury_balance{chain="BASE",asset="ETH"} 1.25');
        expect(metrics).toContain('treasury_balance{chain="BASE",asset="USDC"} 7.000001');
        const age = /treasury_oldest_pending_send_age_seconds\{chain="BASE"\} ([\d.e+-]+)/.exec(metrics);
        expect(Number(age?.[1])).toBeGreaterThan(0);
      } finally {
        api.child.kill("SIGTERM");
        expect(await waitForExit(api.child)).toBe(0);
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
