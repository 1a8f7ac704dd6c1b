import { CHAIN_IDS } from "@mp/core";
import { describe, expect, it } from "vitest";
import { familyOf } from "../src/chain-families.ts";
import { loadChainFamily } from "../src/load-chain-family.ts";

describe("loadChainFamily", () => {
  it("loads, for every chain, the record chain-families.ts registers for it", async () => {
    for (const chain of CHAIN_IDS) expect(await loadChainFamily(chain)).toBe(familyOf(chain));
  });
});
