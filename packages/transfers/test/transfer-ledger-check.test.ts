import { describe, expect, it, vi } from "vitest";

describe("the transfers' ledger checks", () => {
  it("are registered by the composition root's call, never by loading the package", async () => {
    // Fresh copies of both packages: test files share a worker's modules (isolate: false), and
    // another file may have registered the checks in the copies it loaded.
    vi.resetModules();
    const { registeredLedgerChecks } = await import("@mp/ledger");
    const { registerTransferLedgerChecks } = await import("../src/index.ts");
    // Loaded above (index.ts and everything it imports): nothing registered yet.
    expect(registeredLedgerChecks()).toEqual([]);
    registerTransferLedgerChecks();
    registerTransferLedgerChecks();
    expect(registeredLedgerChecks()).toEqual(["transfers", "transfer funding deposits", "bank returns"]);
  });
});
