/**
 * `pnpm bench <name> [options]`: prints figures, never asserts. Names: api, wallets, indexer
 * (`--chain BASE|SOLANA|BITCOIN|TRON`, default BASE), failover (`--rounds N --bound S [--role indexer|all]`, both roles by default, PostgreSQL only),
 * webhooks, sends (EVM, `--sends N`, default 1,000), bitcoin-sends (`--sends N`, default 200),
 * sweeps (EVM, `--addresses N`, default 1,000), transfers (`--seconds S` of quotes, `--rounds N` of
 * whole bank USD -> USDC stories, default 5), dashboard (`--deposits N`, default 100,000), checkout
 * (`--rounds N` of paid requests, default 3), cli (`--rounds N` of each command, default 5).
 */
import { printTable } from "./measure.ts";

const [name = "all", ...rest] = process.argv.slice(2);
const flag = (key: string) => {
  const i = rest.indexOf(`--${key}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const seconds = flag("seconds") ? Number(flag("seconds")) : undefined;

const benches: Record<string, () => Promise<void>> = {
  api: async () => (await import("./api.ts")).runApiBench(seconds ? { seconds } : {}),
  indexer: async () =>
    (await import("./indexer.ts")).runIndexerBench({
      ...(flag("chain") ? { chain: flag("chain") as string } : {}),
      ...(flag("blocks") ? { blocks: Number(flag("blocks")) } : {}),
    }),
  wallets: async () => (await import("./wallets.ts")).runWalletsBench(seconds ? { seconds } : {}),
  failover: async () =>
    (await import("./failover.ts")).runFailoverBench({
      ...(flag("rounds") ? { rounds: Number(flag("rounds")) } : {}),
      ...(flag("bound") ? { bound: Number(flag("bound")) } : {}),
      ...(flag("role") ? { role: flag("role") as "indexer" | "all" } : {}),
    }),
  webhooks: async () => (await import("./webhooks.ts")).runWebhooksBench(seconds ? { seconds } : {}),
  transfers: async () =>
    (await import("./transfers.ts")).runTransfersBench({
      ...(seconds ? { seconds } : {}),
      ...(flag("rounds") ? { rounds: Number(flag("rounds")) } : {}),
    }),
  cli: async () => (await import("./cli.ts")).runCliBench(flag("rounds") ? { rounds: Number(flag("rounds")) } : {}),
  checkout: async () =>
    (await import("./checkout.ts")).runCheckoutBench(flag("rounds") ? { rounds: Number(flag("rounds")) } : {}),
  dashboard: async () =>
    (await import("./dashboard.ts")).runDashboardBench(flag("deposits") ? { deposits: Number(flag("deposits")) } : {}),
  // The three treasury figures: EVM sends/s, Bitcoin batching, EVM sweeps. Each also runs alone.
  sends: async () => {
    await benches["evm-sends"]?.();
    await benches["bitcoin-sends"]?.();
    await benches.sweeps?.();
  },
  "evm-sends": async () => {
    await (await import("../../packages/treasury/bench/sends.ts")).runSendsBench(
      flag("sends") ? { sends: Number(flag("sends")) } : {},
    );
  },
  "bitcoin-sends": async () => {
    const { runBitcoinSendsBench } = await import("../../packages/treasury/bench/bitcoin-sends.ts");
    const result = await runBitcoinSendsBench(flag("sends") ? { sends: Number(flag("sends")) } : {});
    printTable("Bitcoin: queued sends batched, signed, stored and broadcast in one pipeline pass (target < 1 s)", [
      { sends: result.sends, transactions: result.transactions, "pass ms": Math.round(result.passMs) },
    ]);
  },
  sweeps: async () => {
    const { runEvmSweepsBench } = await import("../../packages/treasury/bench/evm-sweeps.ts");
    const result = await runEvmSweepsBench(flag("addresses") ? { addresses: Number(flag("addresses")) } : {});
    printTable("EVM sweeps: deposit addresses topped up with gas and swept into the treasury (target < 60 s)", [
      { addresses: result.addresses, "top-ups": result.topUps, seconds: Number(result.seconds.toFixed(1)) },
    ]);
  },
};

const selected = name === "all" ? Object.keys(benches).filter((b) => b !== "sends") : [name];
for (const bench of selected) {
  const run = benches[bench];
  if (!run) {
    process.stderr.write(`unknown benchmark ${bench}; known: ${Object.keys(benches).join(", ")}\n`);
    process.exit(2);
  }
  await run();
}
process.exit(0);
