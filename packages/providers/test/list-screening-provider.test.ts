import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@mp/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createListScreeningProvider,
  parseSanctionsList,
  SANDBOX_SANCTIONED_ADDRESSES,
  SanctionsListFormatError,
} from "../src/index.ts";
import { NEEDS_SHARED, SHARED_FIXTURES, SHARED_FIXTURES_PRESENT } from "./shared-fixtures.ts";

const LISTS = fileURLToPath(new URL("sanctions/", SHARED_FIXTURES));
const logger = silentLogger();

describe.skipIf(!SHARED_FIXTURES_PRESENT)(
  `the real OFAC per-asset lists (../shared/fixtures/sanctions)${NEEDS_SHARED}`,
  () => {
    it("loads every list of the directory and names the file an address came from", async () => {
      const screening = await createListScreeningProvider({ path: LISTS, sandbox: false, logger });
      const described = screening.describe();
      expect(described).toMatchObject({ mode: "list", path: LISTS });
      if (described.mode !== "list") throw new Error("unreachable");
      expect(described.lists).toContain("sanctioned_addresses_ETH.txt");
      // ETH 152, XBT 435, TRX 6 and the USDT/USDC/BSC/ARB ones, the .json twins ignored.
      expect(described.lists).not.toContain("sanctioned_addresses_ETH.json");
      expect(described.addresses).toBeGreaterThan(590);
      const eth = parseSanctionsList("ETH", await readFile(join(LISTS, "sanctioned_addresses_ETH.txt"), "utf8"));
      expect(eth).toHaveLength(152);
      for (const address of eth) expect(await screening.screen(address), address).not.toBeNull();
    });

    it("matches EVM addresses in any case, bech32 in any case, base58 only exactly", async () => {
      const screening = await createListScreeningProvider({ path: LISTS, sandbox: false, logger });
      const checksum = "0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1";
      expect(await screening.screen(checksum.toLowerCase())).toMatchObject({ list: "sanctioned_addresses_ETH.txt" });
      expect(await screening.screen(checksum.toUpperCase().replace("0X", "0x"))).not.toBeNull();
      const xbt = parseSanctionsList("XBT", await readFile(join(LISTS, "sanctioned_addresses_XBT.txt"), "utf8"));
      const bech32 = xbt.find((a) => a.startsWith("bc1"));
      const legacy = xbt.find((a) => a.startsWith("1") && a !== a.toLowerCase());
      if (!bech32 || !legacy) throw new Error("the XBT list has bech32 and legacy addresses");
      expect(await screening.screen(bech32.toUpperCase())).not.toBeNull();
      expect(await screening.screen(legacy)).not.toBeNull();
      expect(await screening.screen(legacy.toLowerCase())).toBeNull();
      expect(await screening.screen("TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre")).toMatchObject({
        list: "sanctioned_addresses_TRX.txt",
      });
      expect(await screening.screen("0x0000000000000000000000000000000000000001")).toBeNull();
    });

    it("loads one file given as the path", async () => {
      const file = join(LISTS, "sanctioned_addresses_TRX.txt");
      const screening = await createListScreeningProvider({ path: file, sandbox: false, logger });
      expect(screening.describe()).toMatchObject({ addresses: 6, lists: ["sanctioned_addresses_TRX.txt"] });
      expect(await screening.screen("0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1")).toBeNull();
    });
  },
);

describe("list reloads and refusals", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sanctions-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reloads a list that changed, and keeps the last one when the new one is broken", async () => {
    const file = join(dir, "sanctioned_addresses_ETH.txt");
    const first = "0x1111111111111111111111111111111111111111";
    const second = "0x2222222222222222222222222222222222222222";
    await writeFile(file, `${first}\n`);
    const screening = await createListScreeningProvider({ path: dir, sandbox: false, logger, reloadCheckMs: 0 });
    expect(await screening.screen(first)).not.toBeNull();
    expect(await screening.screen(second)).toBeNull();
    await writeFile(file, `# refreshed\n${second}\n\n`);
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    expect(await screening.screen(second)).not.toBeNull();
    expect(await screening.screen(first)).toBeNull();
    await writeFile(file, "<html>not a list</html>\n");
    await utimes(file, new Date(), new Date(Date.now() + 10_000));
    expect(await screening.screen(second)).not.toBeNull();
  });

  it("refuses to start on a missing path, an empty directory or a file that is no list", async () => {
    await expect(createListScreeningProvider({ path: join(dir, "absent"), sandbox: false, logger })).rejects.toThrow();
    await expect(createListScreeningProvider({ path: dir, sandbox: false, logger })).rejects.toThrow(/holds no/);
    const bad = join(dir, "list.json");
    await writeFile(bad, '{"addresses": []}');
    await expect(createListScreeningProvider({ path: bad, sandbox: false, logger })).rejects.toBeInstanceOf(
      SanctionsListFormatError,
    );
  });

  it("screens the sandbox's magic address only in the sandbox", async () => {
    const [magic] = SANDBOX_SANCTIONED_ADDRESSES;
    if (!magic) throw new Error("a magic address");
    const sandbox = await createListScreeningProvider({ path: null, sandbox: true, logger });
    expect(await sandbox.screen(magic.toUpperCase().replace("0X", "0x"))).toMatchObject({ list: "sandbox" });
    const production = await createListScreeningProvider({ path: null, sandbox: false, logger });
    expect(await production.screen(magic)).toBeNull();
  });
});
