import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Logger } from "@mp/core";
import type { AddressScreening, SanctionsHit, ScreeningDescription } from "./address-screening.ts";
import { sanctionsAddressKey } from "./sanctions-address-key.ts";
import { parseSanctionsList } from "./sanctions-list-file.ts";
import { SANDBOX_SANCTIONED_ADDRESSES } from "./sandbox-sanctioned-addresses.ts";

export interface ListScreeningOptions {
  /**
   * SANCTIONS_LIST_PATH: one list file (.txt or .json), or a directory whose
   * `sanctioned_addresses_*.txt` files are all loaded (the public per-asset lists; a directory of
   * only .json ones loads those). Null: no
   * file (the sandbox's magic address only).
   */
  path: string | null;
  /** Screen the sandbox's magic addresses too (PAYMENTS_ENV=sandbox). */
  sandbox: boolean;
  logger: Logger;
  /** How often the files' sizes and times are compared to reload a changed list (default 10 s). */
  reloadCheckMs?: number;
}

/** Where each address came from: key -> list name. */
type LoadedList = ReadonlyMap<string, string>;

const LIST_FILE = /^sanctioned_addresses_.+\.(txt|json)$/;
const DEFAULT_RELOAD_CHECK_MS = 10_000;

/**
 * Loads the list (a start fails when it cannot: a list that is set must be read) and screens
 * against it in memory. At most every `reloadCheckMs`, a screening first compares the files' sizes
 * and modification times with those loaded and reloads on a change; a reload that fails keeps the
 * list it had (logged): a half-written file never empties the screening.
 */
export async function createListScreeningProvider(options: ListScreeningOptions): Promise<AddressScreening> {
  const { path, logger } = options;
  const sandbox = new Map(SANDBOX_SANCTIONED_ADDRESSES.map((a) => [sanctionsAddressKey(a), "sandbox"]));
  let signature = path === null ? "" : await listSignature(path);
  let list: LoadedList = path === null ? new Map() : await loadList(path);
  let loadedAt: Date | null = path === null ? null : new Date();
  let checkedAt = Date.now();
  let checking: Promise<void> | null = null;

  async function reloadIfChanged(): Promise<void> {
    if (path === null) return;
    try {
      const now = await listSignature(path);
      if (now === signature) return;
      list = await loadList(path);
      signature = now;
      loadedAt = new Date();
      logger.info({ path, addresses: list.size }, "sanctions list changed: reloaded");
    } catch (error) {
      logger.error({ path, err: String(error) }, "sanctions list could not be reloaded: screening with the last one");
    }
  }

  return {
    async screen(address: string): Promise<SanctionsHit | null> {
      if (Date.now() - checkedAt >= (options.reloadCheckMs ?? DEFAULT_RELOAD_CHECK_MS)) {
        checking ??= reloadIfChanged().finally(() => {
          checkedAt = Date.now();
          checking = null;
        });
        await checking;
      }
      const key = sanctionsAddressKey(address);
      const name = list.get(key) ?? (options.sandbox ? sandbox.get(key) : undefined);
      return name === undefined ? null : { address, list: name };
    },
    describe(): ScreeningDescription {
      const lists = [...new Set(list.values())].sort();
      return { mode: "list", path, addresses: list.size, lists, loadedAt };
    },
  };
}

/**
 * The list files of `path`: itself when a file, else its sanctioned_addresses_*.txt files (or, when
 * there are none, its .json ones), sorted.
 */
async function listFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const all = (await readdir(path)).filter((name) => LIST_FILE.test(name)).sort();
  // The public lists come as .txt and .json twins of the same addresses: the .txt ones are read.
  const text = all.filter((name) => name.endsWith(".txt"));
  const names = text.length > 0 ? text : all;
  if (names.length === 0) throw new Error(`${path} holds no sanctioned_addresses_*.txt or .json file`);
  return names.map((name) => join(path, name));
}

/** Names, sizes and modification times of the list files: what a change of the list changes. */
async function listSignature(path: string): Promise<string> {
  const files = await listFiles(path);
  const parts = await Promise.all(
    files.map(async (file) => {
      const s = await stat(file);
      return `${file}:${s.size}:${s.mtimeMs}`;
    }),
  );
  return parts.join("\n");
}

async function loadList(path: string): Promise<LoadedList> {
  const list = new Map<string, string>();
  for (const file of await listFiles(path)) {
    const name = basename(file);
    for (const address of parseSanctionsList(name, await readFile(file, "utf8"))) {
      const key = sanctionsAddressKey(address);
      if (!list.has(key)) list.set(key, name);
    }
  }
  return list;
}
