import { describe, expect, it } from "vitest";
import type { AddressDeriver, DerivedAddress } from "../src/deps.ts";
import { AddressLookahead } from "../src/wallets/address-lookahead.ts";

/** A deriver whose addresses name their (account, index) and which counts its calls. */
function countingDeriver(): AddressDeriver & { calls: Array<[number, number]> } {
  const calls: Array<[number, number]> = [];
  return {
    calls,
    deriveWalletAddresses(account: number, index: number): DerivedAddress[] {
      calls.push([account, index]);
      return [
        { chain: "BASE", address: `a${account}i${index}`, addressKey: `a${account}i${index}`, path: `m/${index}` },
      ];
    },
  };
}

describe("AddressLookahead", () => {
  it("derives nothing ahead for a merchant it has not seen allocate", () => {
    const deriver = countingDeriver();
    const lookahead = new AddressLookahead(deriver);
    lookahead.prepare("m1");
    expect(deriver.calls).toEqual([]);
    expect(lookahead.addressesFor("m1", 3, 0)[0]?.address).toBe("a3i0");
    expect(deriver.calls).toEqual([[3, 0]]);
  });

  it("hands the allocated index the addresses prepared for it, deriving each index once", () => {
    const deriver = countingDeriver();
    const lookahead = new AddressLookahead(deriver);
    lookahead.addressesFor("m1", 3, 0);
    // Three creations prepare before any of them allocates; allocations come back in another order.
    lookahead.prepare("m1");
    lookahead.prepare("m1");
    lookahead.prepare("m1");
    expect(deriver.calls).toEqual([
      [3, 0],
      [3, 1],
      [3, 2],
      [3, 3],
    ]);
    expect(lookahead.addressesFor("m1", 3, 2)[0]?.address).toBe("a3i2");
    expect(lookahead.addressesFor("m1", 3, 1)[0]?.address).toBe("a3i1");
    expect(lookahead.addressesFor("m1", 3, 3)[0]?.address).toBe("a3i3");
    expect(deriver.calls).toHaveLength(4);
  });

  it("always returns the allocated index's addresses when the prediction was wrong", () => {
    const deriver = countingDeriver();
    const lookahead = new AddressLookahead(deriver);
    lookahead.addressesFor("m1", 3, 0);
    lookahead.prepare("m1"); // expects 1; another process took 1..9
    expect(lookahead.addressesFor("m1", 3, 10)[0]?.address).toBe("a3i10");
    lookahead.prepare("m1"); // follows the allocation: expects 11
    expect(lookahead.addressesFor("m1", 3, 11)[0]?.address).toBe("a3i11");
    expect(deriver.calls).toEqual([
      [3, 0],
      [3, 1],
      [3, 10],
      [3, 11],
    ]);
  });

  it("starts again after predictions ran far ahead (failed creations)", () => {
    const deriver = countingDeriver();
    const lookahead = new AddressLookahead(deriver);
    lookahead.addressesFor("m1", 3, 0);
    for (let i = 0; i < 100; i++) lookahead.prepare("m1");
    expect(lookahead.addressesFor("m1", 3, 1)[0]?.address).toBe("a3i1");
    deriver.calls.length = 0;
    // Without the restart this would derive index 101; index 2 is already prepared.
    lookahead.prepare("m1");
    expect(deriver.calls).toEqual([]);
    expect(lookahead.addressesFor("m1", 3, 2)[0]?.address).toBe("a3i2");
    expect(deriver.calls).toEqual([]);
  });
});
