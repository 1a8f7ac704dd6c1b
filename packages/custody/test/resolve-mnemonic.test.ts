import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@mp/core";
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  resolveMnemonic,
  resolveTreasuryMnemonic,
  SANDBOX_MNEMONIC_FILE,
  TREASURY_MNEMONIC_SECRET,
} from "../src/index.ts";
import { generateMnemonic } from "../src/mnemonic.ts";
import { openSigningRoots } from "../src/signing-keys.ts";
import { ABANDON_MNEMONIC, TEST_JUNK_MNEMONIC } from "./support.ts";

/** "abandon … about" with its last word swapped: every word is valid, the checksum is not. */
const BAD_CHECKSUM = ABANDON_MNEMONIC.replace(/about$/, "abandon");

function capturingLogger() {
  const lines: string[] = [];
  const logger = pino({ level: "trace" }, { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "custody-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("resolveMnemonic", () => {
  it("returns a configured mnemonic, normalised", () => {
    const mnemonic = resolveMnemonic({
      source: { value: `  ${TEST_JUNK_MNEMONIC.replaceAll(" ", "\n ")}\n` },
      environment: "sandbox",
      dataDir,
    });
    expect(mnemonic).toBe(TEST_JUNK_MNEMONIC);
  });

  it("reads MASTER_MNEMONIC_FILE", () => {
    const file = join(dataDir, "secret");
    writeFileSync(file, `${ABANDON_MNEMONIC}\n`, { mode: 0o600 });
    expect(resolveMnemonic({ source: { file }, environment: "sandbox", dataDir })).toBe(ABANDON_MNEMONIC);
  });

  it("refuses a bad checksum with one line naming the setting and no word of the mnemonic", () => {
    const error = configError(() =>
      resolveMnemonic({ source: { value: BAD_CHECKSUM }, environment: "sandbox", dataDir }),
    );
    expect(error.setting).toBe("MASTER_MNEMONIC");
    expect(error.message).toMatch(/^MASTER_MNEMONIC: .*checksum/);
    expect(error.message).not.toContain("\n");
    expect(error.message).not.toMatch(/abandon|about/);
  });

  it("names the file setting and never echoes a bad file's words", () => {
    const file = join(dataDir, "secret");
    // "correct" and "horse" are BIP-39 words, "battery" is not.
    writeFileSync(file, "correct horse battery staple correct horse battery staple correct horse battery zebra");
    const error = configError(() => resolveMnemonic({ source: { file }, environment: "production", dataDir }));
    expect(error.setting).toBe("MASTER_MNEMONIC_FILE");
    expect(error.message).toMatch(/word 3 is not in the English word list/);
    expect(error.message).not.toMatch(/horse|battery|staple|zebra/);

    const missing = configError(() =>
      resolveMnemonic({ source: { file: join(dataDir, "nope") }, environment: "production", dataDir }),
    );
    expect(missing.message).toBe(`MASTER_MNEMONIC_FILE: cannot read file ${join(dataDir, "nope")}`);
  });

  it("reports a wrong word count", () => {
    const error = configError(() =>
      resolveMnemonic({ source: { value: "abandon abandon about" }, environment: "sandbox", dataDir }),
    );
    expect(error.message).toBe(
      "MASTER_MNEMONIC: is not a BIP-39 mnemonic: expected 12, 15, 18, 21 or 24 words, found 3",
    );
  });

  it("in production refuses to start without a mnemonic, and with a public test mnemonic", () => {
    const missing = configError(() => resolveMnemonic({ source: undefined, environment: "production", dataDir }));
    expect(missing.setting).toBe("MASTER_MNEMONIC");
    expect(missing.message).toMatch(/required in production/);
    expect(() => statSync(join(dataDir, SANDBOX_MNEMONIC_FILE))).toThrow();

    const known = configError(() =>
      resolveMnemonic({ source: { value: TEST_JUNK_MNEMONIC }, environment: "production", dataDir }),
    );
    expect(known.message).toMatch(/publicly known test mnemonic/);
    expect(known.message).not.toMatch(/test test|junk/);
  });

  it("in a sandbox generates a 0600 file on first start, warns without the words, and reuses it", () => {
    const first = capturingLogger();
    const generated = resolveMnemonic({ source: undefined, environment: "sandbox", dataDir, logger: first.logger });
    expect(generated.split(" ")).toHaveLength(24);
    expect(validateMnemonic(generated, wordlist)).toBe(true);

    const file = join(dataDir, SANDBOX_MNEMONIC_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(generated);

    // One warning, made of a fixed message and the file's path: nothing from the mnemonic. (Single
    // words cannot be checked one by one: "file", "address" and "level" are BIP-39 words too.)
    expect(first.lines).toHaveLength(1);
    const warning = JSON.parse(first.lines[0] ?? "{}") as Record<string, unknown>;
    expect(Object.keys(warning).sort()).toEqual(["hostname", "level", "msg", "path", "pid", "time"]);
    expect(warning.level).toBe(40);
    expect(warning.path).toBe(file);
    expect(warning.msg).toMatch(/^no MASTER_MNEMONIC configured: generated a new sandbox mnemonic/);
    const words = generated.split(" ");
    for (let i = 1; i < words.length; i++) {
      expect(first.lines[0]).not.toContain(`${words[i - 1]} ${words[i]}`);
    }

    const second = capturingLogger();
    const again = resolveMnemonic({ source: undefined, environment: "sandbox", dataDir, logger: second.logger });
    expect(again).toBe(generated);
    expect(second.lines).toHaveLength(0);
    // Same mnemonic, same deployment keys.
    expect(openSigningRoots("MASTER_MNEMONIC", again).fingerprint).toBe(
      openSigningRoots("MASTER_MNEMONIC", generated).fingerprint,
    );
  });

  it("refuses a damaged sandbox file instead of silently replacing it", () => {
    writeFileSync(join(dataDir, SANDBOX_MNEMONIC_FILE), BAD_CHECKSUM, { mode: 0o600 });
    const error = configError(() => resolveMnemonic({ source: undefined, environment: "sandbox", dataDir }));
    expect(error.message).toMatch(/sandbox mnemonic file .* checksum/);
    expect(error.message).not.toMatch(/abandon/);
    expect(readFileSync(join(dataDir, SANDBOX_MNEMONIC_FILE), "utf8")).toBe(BAD_CHECKSUM);
  });
});

describe("resolveTreasuryMnemonic", () => {
  // Not a public one: production would refuse that first.
  const master = generateMnemonic();

  it("follows the master mnemonic's rules under its own names: TREASURY_MNEMONIC(_FILE), DATA_DIR/treasury-mnemonic", () => {
    const missing = configError(() =>
      resolveTreasuryMnemonic({ source: undefined, environment: "production", dataDir, masterMnemonic: master }),
    );
    expect(missing.message).toBe(
      "TREASURY_MNEMONIC: required in production: set TREASURY_MNEMONIC or TREASURY_MNEMONIC_FILE (a BIP-39 mnemonic kept offline as well)",
    );
    const unreadable = configError(() =>
      resolveTreasuryMnemonic({
        source: { file: join(dataDir, "nope") },
        environment: "sandbox",
        dataDir,
        masterMnemonic: master,
      }),
    );
    expect(unreadable.message).toBe(`TREASURY_MNEMONIC_FILE: cannot read file ${join(dataDir, "nope")}`);
    const bad = configError(() =>
      resolveTreasuryMnemonic({
        source: { value: BAD_CHECKSUM },
        environment: "sandbox",
        dataDir,
        masterMnemonic: master,
      }),
    );
    expect(bad.setting).toBe("TREASURY_MNEMONIC");
    expect(bad.message).not.toMatch(/abandon/);
    const file = join(dataDir, "treasury-words");
    writeFileSync(file, ABANDON_MNEMONIC, { mode: 0o600 });
    const known = configError(() =>
      resolveTreasuryMnemonic({ source: { file }, environment: "production", dataDir, masterMnemonic: master }),
    );
    expect(known.message).toBe(
      "TREASURY_MNEMONIC_FILE: is a publicly known test mnemonic; refusing to hold real funds with it",
    );
  });

  it("refuses the master mnemonic itself, in any environment, without echoing it", () => {
    for (const environment of ["sandbox", "production"] as const) {
      const same = configError(() =>
        resolveTreasuryMnemonic({
          source: { value: `${master.toUpperCase()}\n` },
          environment,
          dataDir,
          masterMnemonic: master,
        }),
      );
      expect(same.message).toBe(
        "TREASURY_MNEMONIC: is the master mnemonic (MASTER_MNEMONIC); the treasury needs a mnemonic of its own",
      );
    }
    const file = join(dataDir, "treasury-words");
    writeFileSync(file, master, { mode: 0o600 });
    const fromFile = configError(() =>
      resolveTreasuryMnemonic({ source: { file }, environment: "sandbox", dataDir, masterMnemonic: master }),
    );
    expect(fromFile.setting).toBe("TREASURY_MNEMONIC_FILE");
  });

  it("in a sandbox generates its own 0600 file beside the master's, and reuses it", () => {
    const masterGenerated = resolveMnemonic({ source: undefined, environment: "sandbox", dataDir });
    const { logger, lines } = capturingLogger();
    const treasury = resolveTreasuryMnemonic({
      source: undefined,
      environment: "sandbox",
      dataDir,
      logger,
      masterMnemonic: masterGenerated,
    });
    expect(treasury).not.toBe(masterGenerated);
    const file = join(dataDir, TREASURY_MNEMONIC_SECRET.sandboxFile);
    expect(file).toBe(join(dataDir, "treasury-mnemonic"));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(treasury);
    expect(readFileSync(join(dataDir, SANDBOX_MNEMONIC_FILE), "utf8").trim()).toBe(masterGenerated);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}").msg).toMatch(
      /^no TREASURY_MNEMONIC configured: generated a new sandbox mnemonic/,
    );
    expect(
      resolveTreasuryMnemonic({ source: undefined, environment: "sandbox", dataDir, masterMnemonic: masterGenerated }),
    ).toBe(treasury);
  });
});
