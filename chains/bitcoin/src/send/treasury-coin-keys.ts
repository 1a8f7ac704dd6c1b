import type { TreasuryKey, TreasuryKeys } from "@mp/custody";

/** The key at a treasury path `m/84'/c'/0'/<branch>/<index>`, derived once per path. */
export function treasuryCoinKeys(keys: TreasuryKeys, receive: TreasuryKey): (path: string) => TreasuryKey {
  const keyCache = new Map<string, TreasuryKey>([[receive.path, receive]]);
  return (path) => {
    const cached = keyCache.get(path);
    if (cached) return cached;
    const [branch, index] = path.split("/").slice(-2).map(Number);
    if ((branch !== 0 && branch !== 1) || index === undefined || !Number.isInteger(index)) {
      throw new Error(`treasury coin at an unknown path ${path}`);
    }
    const key = keys.key("bitcoin", branch, index);
    if (key.path !== path) throw new Error(`treasury path ${path} is not this treasury's (${key.path})`);
    keyCache.set(path, key);
    return key;
  };
}
