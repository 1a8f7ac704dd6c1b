import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { parser } from "@prometheus-io/lezer-promql";
import { CORE_SCHEMA, load } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startService } from "../cli/run-cli.ts";
import { sharedProcessEnv, stopProcess } from "../e2e/several-processes.ts";
import { writeChainsConfig } from "../support/chains-config-file.ts";
import { useTempDir } from "../support/test-database.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RULES_FILE = join(ROOT, "deploy/prometheus/payments-alerts.yml");
const DASHBOARD_FILE = join(ROOT, "deploy/grafana/payments-dashboard.json");

/** promtool's rule file schema: unknown keys are errors there too. */
const duration = z.string().regex(/^(\d+(ms|s|m|h|d|w|y))+$/, "a Prometheus duration, e.g. 5m");
const RuleFile = z.strictObject({
  groups: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        interval: duration.optional(),
        rules: z
          .array(
            z.strictObject({
              alert: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/),
              expr: z.string().min(1),
              for: duration.optional(),
              keep_firing_for: duration.optional(),
              labels: z
                .record(z.string(), z.string())
                .refine((l) => ["warning", "critical"].includes(l.severity ?? "")),
              annotations: z.strictObject({ summary: z.string().min(1), description: z.string().min(1) }),
            }),
          )
          .min(1),
      }),
    )
    .min(1),
});

const Dashboard = z.object({
  title: z.string().min(1),
  uid: z.string().min(1),
  schemaVersion: z.number().int(),
  panels: z.array(
    z.object({
      id: z.number().int(),
      type: z.string(),
      title: z.string().min(1),
      gridPos: z.object({ h: z.number(), w: z.number(), x: z.number(), y: z.number() }),
      targets: z.array(z.object({ refId: z.string(), expr: z.string().min(1) })).optional(),
    }),
  ),
});

/**
 * Parses `expr` as PromQL (Prometheus's own grammar, @prometheus-io/lezer-promql): any syntax error
 * throws; answers the metric names its selectors read.
 */
function metricNames(expr: string): string[] {
  const tree = parser.parse(expr);
  const names: string[] = [];
  const errors: number[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      // A selector's metric name: an Identifier directly under a VectorSelector.
      if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector") {
        names.push(expr.slice(node.from, node.to));
      }
    },
  });
  if (errors.length > 0) throw new Error(`PromQL syntax error at ${errors[0]} in: ${expr}`);
  return names;
}

const rules = () => RuleFile.parse(load(readFileSync(RULES_FILE, "utf8"), { schema: CORE_SCHEMA }));
const dashboard = () => Dashboard.parse(JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")));
const dashboardExprs = () => dashboard().panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const ruleExprs = () => rules().groups.flatMap((g) => g.rules.map((r) => r.expr));

describe("deploy/: Prometheus alert rules and the Grafana dashboard (promtool-equivalent checks)", () => {
  it("parses the rules file with promtool's schema, unique alert names, each expression as PromQL", () => {
    const file = rules();
    const alerts = file.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(new Set(alerts).size).toBe(alerts.length);
    for (const expr of ruleExprs()) expect(metricNames(expr).length, expr).toBeGreaterThan(0);
    // The five subjects each have a rule.
    const all = ruleExprs().join("\n");
    for (const metric of [
      "indexer_lag_blocks",
      "indexer_rpc_errors_total",
      "treasury_oldest_pending_send_age_seconds",
      "webhook_endpoints_failing",
      'reconcile_lines{status="unexplained"}',
    ]) {
      expect(all).toContain(metric);
    }
  });

  it("parses the dashboard JSON and every panel target's expression", () => {
    const board = dashboard();
    expect(new Set(board.panels.map((p) => p.id)).size).toBe(board.panels.length);
    expect(dashboardExprs().length).toBeGreaterThan(10);
    for (const expr of dashboardExprs()) expect(metricNames(expr).length, expr).toBeGreaterThan(0);
  });

  it("the PromQL check can fail: broken expressions and unknown keys are refused", () => {
    expect(() => metricNames("rate(indexer_rpc_errors_total[5m] > 1")).toThrow(/syntax error/);
    expect(() => metricNames("sum by (chain) indexer_lag_blocks")).toThrow(/syntax error/);
    expect(() =>
      RuleFile.parse({ groups: [{ name: "g", rules: [{ alert: "A", expr: "up", fro: "5m", labels: {} }] }] }),
    ).toThrow();
  });

  describe("against a running service's GET /metrics", () => {
    const dir = useTempDir("mpdeploy-");
    let database: TestDatabase | undefined;
    let service: Awaited<ReturnType<typeof startService>> | undefined;
    let exposed: Set<string>;

    beforeAll(async () => {
      // --role all with one configured chain (its node down: the indexer runs and counts RPC errors).
      const chainsConfig = writeChainsConfig(dir, { ARBITRUM: { rpcUrl: "http://127.0.0.1:9", network: "regtest" } });
      // PostgreSQL (DATABASE_URL) or else PGlite behind its own socket: the service connects to either.
      database = await createTestDatabase();
      const env = sharedProcessEnv(database, dir);
      service = await startService(["--role", "all"], { ...env, CHAINS_CONFIG: chainsConfig });
      const text = await (await fetch(`${service.url}/metrics`)).text();
      exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] ?? ""));
    }, 120_000);
    afterAll(async () => {
      await stopProcess(service?.child);
      await database?.drop();
    }, 60_000);

    it("names only metrics the service exports", () => {
      expect(exposed.has("indexer_lag_blocks")).toBe(true);
      const named = new Set([...ruleExprs(), ...dashboardExprs()].flatMap(metricNames));
      const missing = [...named].filter((name) => !exposed.has(name));
      expect(missing).toEqual([]);
    });
  });
});
