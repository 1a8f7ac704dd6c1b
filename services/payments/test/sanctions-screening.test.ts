import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, createLogger, loadConfig } from "@mp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSanctionsScreening } from "../src/sanctions-screening.ts";

/** Start-up rules of the screening: production needs a list or an explicit opt-out, logged each start. */
describe("openSanctionsScreening", () => {
  let dir: string;
  const listed = "0x1111111111111111111111111111111111111111";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sanctions-start-"));
    await writeFile(join(dir, "sanctioned_addresses_ETH.txt"), `${listed}\n`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  function logged() {
    const lines: string[] = [];
    return { lines, logger: createLogger({ destination: { write: (line: string) => lines.push(line) } }) };
  }

  it("refuses a production start without SANCTIONS_LIST_PATH, naming the opt-out", async () => {
    const config = loadConfig({ PAYMENTS_ENV: "production" });
    const refusal = openSanctionsScreening(config, logged().logger);
    await expect(refusal).rejects.toBeInstanceOf(ConfigError);
    await expect(refusal).rejects.toThrow(/^SANCTIONS_LIST_PATH: required in production.*SANCTIONS_SCREENING=off/);
  });

  it("starts with SANCTIONS_SCREENING=off and says so at every start", async () => {
    for (let start = 0; start < 2; start++) {
      const { lines, logger } = logged();
      const config = loadConfig({ PAYMENTS_ENV: "production", SANCTIONS_SCREENING: "off" });
      const screening = await openSanctionsScreening(config, logger);
      expect(screening.describe()).toEqual({ mode: "off" });
      expect(await screening.screen(listed)).toBeNull();
      expect(lines.join("")).toContain("SANCTIONS_SCREENING=off");
    }
  });

  it("loads the configured list in production, and refuses one that cannot be read", async () => {
    const config = loadConfig({ PAYMENTS_ENV: "production", SANCTIONS_LIST_PATH: dir });
    const screening = await openSanctionsScreening(config, logged().logger);
    expect(await screening.screen(listed)).toEqual({ address: listed, list: "sanctioned_addresses_ETH.txt" });
    const missing = loadConfig({ PAYMENTS_ENV: "production", SANCTIONS_LIST_PATH: join(dir, "absent") });
    await expect(openSanctionsScreening(missing, logged().logger)).rejects.toThrow(/^SANCTIONS_LIST_PATH: /);
  });

  it("screens the sandbox's magic address in a sandbox without a list", async () => {
    const screening = await openSanctionsScreening(loadConfig({}), logged().logger);
    expect(await screening.screen("0xbadbadbadbadbadbadbadbadbadbadbadbadbad0")).toEqual({
      address: "0xbadbadbadbadbadbadbadbadbadbadbadbadbad0",
      list: "sandbox",
    });
  });
});
