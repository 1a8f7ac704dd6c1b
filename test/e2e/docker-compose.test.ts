import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@mp/core";
import { CORE_SCHEMA, load, mergeTag } from "js-yaml";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface ComposeService {
  image?: string;
  command?: string | string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
}

/** docker-compose.yml as Docker reads it (YAML merge keys included); `docker compose` is not on CI. */
function compose(): { services: Record<string, ComposeService>; volumes: Record<string, unknown> } {
  const text = readFileSync(`${ROOT}docker-compose.yml`, "utf8");
  return load(text, { schema: CORE_SCHEMA.withTags(mergeTag) }) as ReturnType<typeof compose>;
}

const roleOf = (service: ComposeService): string | undefined =>
  /serve --role (\w+)$/.exec(typeof service.command === "string" ? service.command : "")?.[1];

describe("docker-compose.yml: the production shape", () => {
  it("runs PostgreSQL, two API replicas behind a load balancer, two indexers and a worker", () => {
    const { services } = compose();
    const roles = Object.entries(services)
      .filter(([, service]) => roleOf(service))
      .map(([name, service]) => `${name}:${roleOf(service)}`);
    expect(roles).toEqual([
      "api-1:api",
      "api-2:api",
      "indexer-1:indexer",
      "indexer-2:indexer",
      "worker:worker",
      "signer:signer",
    ]);
    expect(services.postgres?.image).toBe("postgres:15");
    const lb = JSON.stringify(services.lb?.command);
    expect(lb).toContain("upstream api { server api-1:3000; server api-2:3000; }");
  });

  it("gives every process a valid configuration sharing only PostgreSQL (and the sandbox secrets' volume)", () => {
    const { services } = compose();
    const settingsDoc = readFileSync(`${ROOT}docs/configuration.md`, "utf8");
    for (const [name, service] of Object.entries(services).filter(([, s]) => roleOf(s))) {
      const command = String(service.command);
      expect(existsSync(`${ROOT}${command.split(" ")[1]}`), name).toBe(true);
      const env = service.environment ?? {};
      const config = loadConfig(env);
      expect(new URL(config.databaseUrl ?? "").hostname, name).toBe("postgres");
      expect(config.dataDir, name).toBe("/data");
      // Every setting it passes is one the settings reference (docs/configuration.md) explains.
      for (const setting of Object.keys(env))
        expect(settingsDoc.includes(`\`${setting}\``), `${name}: ${setting}`).toBe(true);
      expect(service.volumes, name).toEqual([".:/app", "payments-data:/data"]);
      expect(service.depends_on, name).toEqual({ setup: { condition: "service_completed_successfully" } });
    }
    expect(services.setup?.command).toMatch(/pnpm install --frozen-lockfile && pnpm payments migrate"?$/);
  });
});
