import { randomBytes } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AppConfig, ConfigError, type Logger } from "@mp/core";
import {
  assertValidMnemonic,
  generateMnemonic,
  isPublicTestMnemonic,
  mnemonicProblem,
  normalizeMnemonic,
} from "./mnemonic.ts";

/** Where the deployment's mnemonic comes from (AppConfig["mnemonic"] when one is configured). */
export type MnemonicSource = { value: string } | { file: string };

/**
 * Which secret is resolved: its settings (`<setting>` or `<setting>_FILE`, named in every error) and
 * the file a sandbox generates it into. The master mnemonic (addresses) and the treasury mnemonic
 * (the hot wallet's signing keys) follow the same rules with their own names.
 */
export interface MnemonicSecret {
  setting: "MASTER_MNEMONIC" | "TREASURY_MNEMONIC";
  /** The file under DATA_DIR a sandbox deployment generates it into when none is configured. */
  sandboxFile: string;
  /** What it is for, in the production error and the sandbox warning. */
  purpose: string;
}

export interface ResolveMnemonicOptions {
  source: AppConfig["mnemonic"];
  environment: "sandbox" | "production";
  dataDir: string;
  logger?: Logger;
  /** Default: the master mnemonic (MASTER_MNEMONIC, DATA_DIR/master-mnemonic). */
  secret?: MnemonicSecret;
}

/** The file a sandbox deployment generates its mnemonic into when none is configured. */
export const SANDBOX_MNEMONIC_FILE = "master-mnemonic";

export const MASTER_MNEMONIC_SECRET: MnemonicSecret = {
  setting: "MASTER_MNEMONIC",
  sandboxFile: SANDBOX_MNEMONIC_FILE,
  purpose: "every receive address derives from it",
};

export const TREASURY_MNEMONIC_SECRET: MnemonicSecret = {
  setting: "TREASURY_MNEMONIC",
  sandboxFile: "treasury-mnemonic",
  purpose: "the treasury's sending keys derive from it",
};

/**
 * A BIP-39 mnemonic, checked, from MASTER_MNEMONIC or MASTER_MNEMONIC_FILE (or the treasury's
 * settings, `options.secret`). A sandbox
 * deployment with neither gets one generated on first start into DATA_DIR/master-mnemonic (mode
 * 0600) and reuses it afterwards; production refuses to start without one, and refuses the publicly
 * known test mnemonics. Every failure is a ConfigError naming the setting, never containing a word.
 */
export function resolveMnemonic(options: ResolveMnemonicOptions): string {
  const { source, environment, logger } = options;
  const secret = options.secret ?? MASTER_MNEMONIC_SECRET;
  let setting: string;
  let mnemonic: string;
  if (source === undefined) {
    if (environment === "production") {
      throw new ConfigError(
        secret.setting,
        `required in production: set ${secret.setting} or ${secret.setting}_FILE (a BIP-39 mnemonic kept offline as well)`,
      );
    }
    return sandboxMnemonic(options.dataDir, secret, logger);
  }
  if ("value" in source) {
    setting = secret.setting;
    mnemonic = normalizeMnemonic(source.value);
  } else {
    setting = `${secret.setting}_FILE`;
    mnemonic = normalizeMnemonic(readMnemonicFile(setting, source.file));
    warnIfReadableByOthers(source.file, logger);
  }
  assertValidMnemonic(setting, mnemonic);
  if (environment === "production" && isPublicTestMnemonic(mnemonic)) {
    throw new ConfigError(setting, "is a publicly known test mnemonic; refusing to hold real funds with it");
  }
  return mnemonic;
}

function readMnemonicFile(setting: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new ConfigError(setting, `cannot read file ${path}`);
  }
}

function warnIfReadableByOthers(path: string, logger: Logger | undefined): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) {
      logger?.warn({ path }, "the mnemonic file is readable by other users; restrict it with chmod 600");
    }
  } catch {
    // Already read successfully; a failing stat is not worth refusing to start over.
  }
}

function sandboxMnemonic(dataDir: string, secret: MnemonicSecret, logger: Logger | undefined): string {
  const path = join(dataDir, secret.sandboxFile);
  const existing = readIfExists(path);
  if (existing !== undefined) {
    warnIfReadableByOthers(path, logger);
    return checkedSandboxMnemonic(path, existing, secret);
  }
  const created = createMnemonicFile(dataDir, path, secret);
  if (created.generated) {
    logger?.warn(
      { path },
      `no ${secret.setting} configured: generated a new sandbox mnemonic; ${secret.purpose}, so back the file up`,
    );
  }
  return created.mnemonic;
}

function checkedSandboxMnemonic(path: string, text: string, secret: MnemonicSecret): string {
  const mnemonic = normalizeMnemonic(text);
  const problem = mnemonicProblem(mnemonic);
  if (problem !== null) {
    throw new ConfigError(
      secret.setting,
      `the sandbox mnemonic file ${path} ${problem}; restore it from its backup or set ${secret.setting}`,
    );
  }
  return mnemonic;
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError("DATA_DIR", `cannot read the sandbox mnemonic file ${path}`);
  }
}

/**
 * Writes a new mnemonic to `path` unless another process got there first. The words go to a private
 * temporary file that is then hard-linked into place: link(2) fails if the name exists, so two
 * processes starting together agree on one mnemonic and nobody reads a half-written file.
 */
function createMnemonicFile(
  dataDir: string,
  path: string,
  secret: MnemonicSecret,
): { mnemonic: string; generated: boolean } {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const mnemonic = generateMnemonic();
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, `${mnemonic}\n`, { mode: 0o600, flag: "wx" });
    // The mode given to open(2) is filtered by the umask; make sure it is exactly 0600.
    chmodSync(temporary, 0o600);
    linkSync(temporary, path);
    return { mnemonic, generated: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new ConfigError("DATA_DIR", `cannot write the sandbox mnemonic file ${path}`);
    }
    return { mnemonic: checkedSandboxMnemonic(path, readFileSync(path, "utf8"), secret), generated: false };
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * The treasury's mnemonic (TREASURY_MNEMONIC or TREASURY_MNEMONIC_FILE; a sandbox generates
 * DATA_DIR/treasury-mnemonic): the master mnemonic's rules, and never the master mnemonic itself, in
 * any environment: the treasury is a seed of its own so that no merchant account's path reaches a
 * treasury key (treasury-keys.ts).
 */
export function resolveTreasuryMnemonic(
  options: Omit<ResolveMnemonicOptions, "secret"> & { masterMnemonic: string },
): string {
  const mnemonic = resolveMnemonic({ ...options, secret: TREASURY_MNEMONIC_SECRET });
  if (mnemonic === normalizeMnemonic(options.masterMnemonic)) {
    const setting = options.source && "file" in options.source ? "TREASURY_MNEMONIC_FILE" : "TREASURY_MNEMONIC";
    throw new ConfigError(
      setting,
      "is the master mnemonic (MASTER_MNEMONIC); the treasury needs a mnemonic of its own",
    );
  }
  return mnemonic;
}
