import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@mp/core";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { keyIdOf, loadEncryptionKeyring, parseOldEncryptionKeys, SANDBOX_KEY_FILE } from "../src/index.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mpenc-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function capturingLogger() {
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

describe("loadEncryptionKeyring", () => {
  it("uses ENCRYPTION_KEY as the current key and never logs it", () => {
    const key = randomBytes(32);
    const { logger, lines } = capturingLogger();
    const ring = loadEncryptionKeyring(
      { environment: "production", dataDir: tempDir(), encryptionKey: key },
      { logger, env: {} },
    );
    expect(ring.currentKeyId).toBe(keyIdOf(key));
    expect(lines.join("")).not.toContain(key.toString("base64"));
    expect(lines.join("")).toContain(ring.currentKeyId);
  });

  it("refuses to start in production without a key, naming the setting", () => {
    const dir = tempDir();
    try {
      loadEncryptionKeyring({ environment: "production", dataDir: dir, encryptionKey: undefined }, { env: {} });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe("ENCRYPTION_KEY");
    }
    expect(() => statSync(join(dir, SANDBOX_KEY_FILE))).toThrow();
  });

  it("generates a 0600 sandbox key in DATA_DIR once, with a warning, and reuses it", () => {
    const dir = join(tempDir(), "nested");
    const { logger, lines } = capturingLogger();
    const first = loadEncryptionKeyring(
      { environment: "sandbox", dataDir: dir, encryptionKey: undefined },
      { logger, env: {} },
    );
    const path = join(dir, SANDBOX_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const stored = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
    expect(stored.length).toBe(32);
    expect(first.currentKeyId).toBe(keyIdOf(stored));
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings[0].msg).toContain("generated a sandbox encryption key");
    expect(lines.join("")).not.toContain(stored.toString("base64"));

    const second = loadEncryptionKeyring(
      { environment: "sandbox", dataDir: dir, encryptionKey: undefined },
      { env: {} },
    );
    expect(second.currentKeyId).toBe(first.currentKeyId);
    const sealed = first.seal("x", "r");
    expect(second.open(sealed, "r").toString()).toBe("x");
  });

  it("rejects a corrupt sandbox key file with one line naming ENCRYPTION_KEY", () => {
    const dir = tempDir();
    writeFileSync(join(dir, SANDBOX_KEY_FILE), "not-a-key\n", { mode: 0o600 });
    expect(() =>
      loadEncryptionKeyring({ environment: "sandbox", dataDir: dir, encryptionKey: undefined }, { env: {} }),
    ).toThrow(/^ENCRYPTION_KEY: .*invalid/);
  });

  it("adds old keys from ENCRYPTION_KEYS_OLD or ENCRYPTION_KEYS_OLD_FILE", () => {
    const current = randomBytes(32);
    const old1 = randomBytes(32);
    const old2 = randomBytes(32);
    const inline = loadEncryptionKeyring(
      { environment: "production", dataDir: tempDir(), encryptionKey: current },
      { env: { ENCRYPTION_KEYS_OLD: `${old1.toString("base64")}, ${old2.toString("base64")}` } },
    );
    expect(inline.keyIds).toEqual([keyIdOf(current), keyIdOf(old1), keyIdOf(old2)]);

    const file = join(tempDir(), "old-keys");
    writeFileSync(file, `${old1.toString("base64")}\n${old2.toString("base64")}\n`);
    expect(parseOldEncryptionKeys({ ENCRYPTION_KEYS_OLD_FILE: file })).toHaveLength(2);
    expect(parseOldEncryptionKeys({})).toEqual([]);
  });

  it("names the bad entry of ENCRYPTION_KEYS_OLD without echoing it", () => {
    const good = randomBytes(32).toString("base64");
    try {
      parseOldEncryptionKeys({ ENCRYPTION_KEYS_OLD: `${good},c2hvcnQ=` });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe("ENCRYPTION_KEYS_OLD: entry 2 must be 32 bytes encoded as base64");
    }
    expect(() => parseOldEncryptionKeys({ ENCRYPTION_KEYS_OLD: good, ENCRYPTION_KEYS_OLD_FILE: "/x" })).toThrow(
      /not both/,
    );
    expect(() => parseOldEncryptionKeys({ ENCRYPTION_KEYS_OLD_FILE: "/nonexistent/keys" })).toThrow(
      /^ENCRYPTION_KEYS_OLD_FILE: cannot read file/,
    );
  });
});
