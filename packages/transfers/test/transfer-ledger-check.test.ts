import { registeredLedgerChecks } from "@mp/ledger";
import { describe, expect, it } from "vitest";
import "../src/index.ts";

describe("the transfers' ledger check", () => {
  it("is registered with checkLedger by loading the package", () => {
    expect(registeredLedgerChecks()).toContain("transfers");
  });
});
