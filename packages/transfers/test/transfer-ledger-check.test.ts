import { registeredLedgerChecks } from "@mp/ledger";
import { describe, expect, it } from "vitest";
import "../src/index.ts";

describe("the transfers' ledger checks", () => {
  it("are registered with checkLedger by loading the package", () => {
    expect(registeredLedgerChecks()).toEqual(["transfers", "transfer funding deposits"]);
  });
});
