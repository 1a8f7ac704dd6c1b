import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { registerRowsPerValueGauge, registerSanctionsMetrics, SANCTIONS_MATCH_CONTEXTS } from "../src/index.ts";

const t = useTestDatabase();

/** The gauge's series as a value per label, read as a scrape reads them. */
async function seriesOf(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  const { values } = await metric.get();
  return Object.fromEntries(values.map((v) => [Object.values(v.labels).join(","), v.value]));
}

describe("registerRowsPerValueGauge", () => {
  it("counts the rows per listed value at every scrape, 0 for a value with none, and registers once", async () => {
    await t.db.query("CREATE TABLE gauge_rows (state text NOT NULL)");
    const registry = new Registry();
    const gauge = {
      name: "gauge_rows",
      help: "rows per state",
      table: "gauge_rows",
      column: "state",
      values: ["a", "b"],
    };
    registerRowsPerValueGauge(registry, t.db, gauge);
    registerRowsPerValueGauge(registry, t.db, gauge);
    expect(await seriesOf(registry, "gauge_rows")).toEqual({ a: 0, b: 0 });

    await t.db.query("INSERT INTO gauge_rows (state) VALUES ('a'), ('a'), ('c')");
    // A value the list does not name has no series; the listed ones are read again.
    expect(await seriesOf(registry, "gauge_rows")).toEqual({ a: 2, b: 0 });
    expect((await registry.getMetricsAsJSON()).map((m) => m.name)).toEqual(["gauge_rows"]);
  });

  it("the sanctions gauge has a series per context on an empty database", async () => {
    const registry = new Registry();
    registerSanctionsMetrics(registry, t.db);
    expect(await seriesOf(registry, "payments_sanctions_matches")).toEqual(
      Object.fromEntries(SANCTIONS_MATCH_CONTEXTS.map((c) => [c, 0])),
    );
  });
});
