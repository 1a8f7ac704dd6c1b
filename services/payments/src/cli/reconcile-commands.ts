import { ConfigError } from "@mp/core/errors";
import type { Command } from "commander";
import { addListCommand, printList, withDatabase } from "./cli-support.ts";

/**
 * `payments reconcile chains`: for each configured chain and asset, what the chain says we hold
 * (treasury and deposit addresses, read from the nodes) against what our records say we should
 * (packages/treasury/src/reconcile). Exit 0 when all agree, 1 on an unexplained difference, 2 when a
 * configured chain cannot be read (named on stderr).
 */
export function addReconcileCommands(program: Command): void {
  const reconcile = program.command("reconcile").description("Finance: our records against the chains");
  addListCommand(
    reconcile,
    "chains",
    "Per configured chain and asset: holdings on chain vs deposits + operator float - sends - fees",
    async (json) => {
      const [{ reconcileChains, recordReconcileReport }, { reconcileTargets }] = await Promise.all([
        import("@mp/treasury"),
        import("../chain-adapters.ts"),
      ]);
      const report = await withDatabase(async (db, config) => {
        if (!config.chains) throw new ConfigError("CHAINS_CONFIG", "no chains configured: nothing to reconcile");
        const report = await reconcileChains(db, reconcileTargets(config.chains));
        // The latest result per chain and asset, for /metrics (reconcile_lines) and its alert rule.
        await recordReconcileReport(db, report);
        return report;
      });
      printList(json, report.lines, {
        json: (line) => line,
        text: (l) =>
          `${l.chain} ${l.asset} ${l.status}: chain ${l.chain_holdings ?? "?"}, expected ${l.expected}, difference ${l.difference ?? "?"} (${l.explanation})`,
        counted: "chain assets reconciled",
      });
      for (const chain of report.unreadable) process.stderr.write(`cannot read chain ${chain}\n`);
      process.exitCode = report.exitCode;
    },
  );
}
