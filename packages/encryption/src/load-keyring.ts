import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, decodeEncryptionKey, type Logger } from "@mp/core";
import { createEncryptionKeyring, type EncryptionKeyring, keyIdOf } from "./keyring.ts";

/** File under DATA_DIR holding the generated sandbox key (base64, mode 0600). */
export const SANDBOX_KEY_FILE = "encryption-key";

/** Old keys, comma- or whitespace-separated base64 (or one per line in the _FILE variant). */
export const OLD_KEYS_SETTING = "ENCRYPTION_KEYS_OLD";
export const OLD_KEYS_FILE_SETTING = "ENCRYPTION_KEYS_OLD_FILE";

/** The part of AppConfig (@mp/core) the keyring is built from. */
export interface KeyringConfig {
  environment: "sandbox" | "production";
  dataDir: string;
  /** ENCRYPTION_KEY / ENCRYPTION_KEY_FILE, already decoded by loadConfig. */
  encryptionKey: Buffer | undefined;
  /** Keys in use before the last rotation; read from ENCRYPTION_KEYS_OLD(_FILE) when absent. */
  oldEncryptionKeys?: Buffer[];
}

function decodeList(setting: string, text: string): Buffer[] {
  const entries = text.split(/[\s,]+/).filter((entry) => entry.length > 0);
  return entries.map((entry, i) => {
    try {
      return decodeEncryptionKey(setting, entry);
    } catch {
      // Name the position, never the value.
      throw new ConfigError(setting, `entry ${i + 1} must be 32 bytes encoded as base64`);
    }
  });
}

/** The old keys named by ENCRYPTION_KEYS_OLD or ENCRYPTION_KEYS_OLD_FILE (none when neither is set). */
export function parseOldEncryptionKeys(env: NodeJS.ProcessEnv = process.env): Buffer[] {
  const inline = env[OLD_KEYS_SETTING]?.trim();
  const file = env[OLD_KEYS_FILE_SETTING]?.trim();
  if (inline && file) {
    throw new ConfigError(OLD_KEYS_SETTING, `set ${OLD_KEYS_SETTING} or ${OLD_KEYS_FILE_SETTING}, not both`);
  }
  if (inline) return decodeList(OLD_KEYS_SETTING, inline);
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new ConfigError(OLD_KEYS_FILE_SETTING, `cannot read file ${file}`);
    }
    return decodeList(OLD_KEYS_FILE_SETTING, text);
  }
  return [];
}

function readKeyFile(path: string): Buffer {
  try {
    return decodeEncryptionKey("ENCRYPTION_KEY", readFileSync(path, "utf8").trim());
  } catch {
    throw new ConfigError("ENCRYPTION_KEY", `not set, and the sandbox key file ${path} is unreadable or invalid`);
  }
}

/**
 * The sandbox key under DATA_DIR: read when present, else generated. The new key is written to a
 * private temporary file and hard-linked into place, which fails if another process got there
 * first; so concurrent first starts agree on one key and nobody ever reads a half-written file.
 */
function sandboxKey(dataDir: string, logger: Logger | undefined): Buffer {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, SANDBOX_KEY_FILE);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fresh = randomBytes(32);
  writeFileSync(temporary, `${fresh.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  let created = true;
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    created = false;
  } finally {
    rmSync(temporary, { force: true });
  }
  if (created) {
    logger?.warn(
      { path, keyId: keyIdOf(fresh) },
      "ENCRYPTION_KEY is not set: generated a sandbox encryption key; production requires ENCRYPTION_KEY",
    );
    return fresh;
  }
  const key = readKeyFile(path);
  if ((statSync(path).mode & 0o077) !== 0) {
    logger?.warn({ path }, "sandbox encryption key file is readable by other users; chmod 600 it");
  }
  logger?.warn({ path, keyId: keyIdOf(key) }, "ENCRYPTION_KEY is not set: using the sandbox encryption key");
  return key;
}

/**
 * Builds the deployment's keyring at start (call once, before serving or working):
 * - ENCRYPTION_KEY / ENCRYPTION_KEY_FILE is the current key;
 * - without it a sandbox deployment generates (or reuses) DATA_DIR/encryption-key with a warning,
 *   and production refuses to start (ConfigError naming ENCRYPTION_KEY);
 * - ENCRYPTION_KEYS_OLD / ENCRYPTION_KEYS_OLD_FILE add the keys of before a rotation (open only).
 * No key ever reaches a log line: only its id.
 */
export function loadEncryptionKeyring(
  config: KeyringConfig,
  options: { logger?: Logger; env?: NodeJS.ProcessEnv } = {},
): EncryptionKeyring {
  const old = config.oldEncryptionKeys ?? parseOldEncryptionKeys(options.env ?? process.env);
  let current = config.encryptionKey;
  if (!current) {
    if (config.environment === "production") {
      throw new ConfigError(
        "ENCRYPTION_KEY",
        "is required in production (32 bytes, base64; or ENCRYPTION_KEY_FILE naming a file that holds it)",
      );
    }
    current = sandboxKey(config.dataDir, options.logger);
  }
  try {
    const keyring = createEncryptionKeyring({ current, old });
    options.logger?.info({ currentKeyId: keyring.currentKeyId, keyIds: keyring.keyIds }, "encryption keys loaded");
    return keyring;
  } catch (error) {
    throw new ConfigError(OLD_KEYS_SETTING, error instanceof Error ? error.message : "invalid keys");
  }
}
