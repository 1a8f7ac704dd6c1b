import { registeredLedgerChecks } from "@mp/ledger";
import { describe, expect, it } from "vitest";
import { registerTransferLedgerChecks } from "../src/index.ts";

describe("the transfers' ledger checks", () => {
  it("are registered by the composition root's call, never by loading the package", () => {
    // Loaded above (index.ts and everything it imports): nothing registered yet.
    expect(registeredLedgerChecks()).toEqual([]);
    registerTransferLedgerChecks();
    registerTransferLedgerChecks();
    expect(registeredLedgerChecks()).toEqual(["transfers", "transfer funding deposits"]);
  });
});
