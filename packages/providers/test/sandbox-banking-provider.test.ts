import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createSandboxBankingProvider,
  isValidAbaRoutingNumber,
  isValidIban,
  SANDBOX_BANKING_DECLINE_REASON,
} from "../src/index.ts";

const request = (virtualAccountId: string, name = "Ada Lovelace", requestedAt = new Date(Date.UTC(2025, 0, 1))) => ({
  virtualAccountId,
  customerId: "c",
  currency: "USD" as const,
  requestedAt,
  beneficiary: { name, address: "12 St James's Square, London SW1Y 4JH, GB" },
});

describe("bank identifier check digits", () => {
  it("validates ABA routing numbers with the published checksum", () => {
    // Published routing numbers of real banks (Federal Reserve E-Payments directory).
    for (const valid of ["021000021", "011000015", "121000358", "026009593"])
      expect(isValidAbaRoutingNumber(valid)).toBe(true);
    for (const invalid of ["021000022", "12345678", "0210000211", "02100002a"])
      expect(isValidAbaRoutingNumber(invalid)).toBe(false);
  });

  it("validates IBANs with mod-97 (ISO 13616 examples) and rejects a changed digit", () => {
    for (const valid of ["GB82WEST12345698765432", "DE89370400440532013000", "GB82 WEST 1234 5698 7654 32"]) {
      expect(isValidIban(valid)).toBe(true);
    }
    for (const invalid of ["GB82WEST12345698765433", "GB83WEST12345698765432", "GB82", "gb82west12345698765432"]) {
      expect(isValidIban(invalid)).toBe(false);
    }
  });
});

describe("sandbox banking provider", () => {
  it("issues realistic instructions: valid ABA routing number, 12-digit account, valid IBAN, BIC, rails", async () => {
    const bank = createSandboxBankingProvider();
    const opened = await bank.openAccount(request("va-1"));
    const i = opened.instructions;
    expect(isValidAbaRoutingNumber(i.routingNumber)).toBe(true);
    expect(i.accountNumber).toMatch(/^\d{12}$/);
    expect(isValidIban(i.iban)).toBe(true);
    expect(i.iban).toMatch(/^GB\d{2}SBXB/);
    expect(i.bic).toMatch(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/);
    expect(i.paymentRails).toEqual(["ACH", "WIRE", "SWIFT"]);
    expect(i.beneficiaryName).toBe("Ada Lovelace");
    expect(i.accountType).toBe("CHECKING");
    expect(i.depositMessage).toMatch(/^SBX[0-9A-F]{10}$/);
  });

  it("gives every virtual account valid, distinct numbers (property)", async () => {
    const bank = createSandboxBankingProvider();
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.uuid(), async (id) => {
        const { instructions } = await bank.openAccount(request(id));
        expect(isValidIban(instructions.iban)).toBe(true);
        expect(instructions.accountNumber).toMatch(/^\d{12}$/);
        seen.add(instructions.accountNumber);
      }),
      { numRuns: 200 },
    );
    expect(seen.size).toBeGreaterThan(195);
  });

  it("activates asynchronously, is idempotent per virtual account id, and survives a restart", async () => {
    let t = Date.UTC(2025, 0, 1);
    const now = () => new Date(t);
    const bank = createSandboxBankingProvider({ activationDelayMs: 1_000, now });
    const opened = await bank.openAccount(request("va-2", "Ada Lovelace", now()));
    expect(opened.checkAfterMs).toBe(1_000);
    t += 400;
    const repeat = await bank.openAccount(request("va-2", "Ada Lovelace", new Date(Date.UTC(2025, 0, 1))));
    expect(repeat.providerAccountId).toBe(opened.providerAccountId);
    expect(repeat.instructions).toEqual(opened.instructions);
    expect(await bank.getAccountStatus(opened.providerAccountId)).toEqual({ status: "PROVISIONING" });
    t += 600;
    expect(await createSandboxBankingProvider({ now }).getAccountStatus(opened.providerAccountId)).toEqual({
      status: "ACTIVE",
    });
    await expect(bank.getAccountStatus("vab_nope")).rejects.toThrow(/not found/);
  });

  it("declines a beneficiary named with the magic word Decline", async () => {
    let t = Date.UTC(2025, 0, 1);
    const now = () => new Date(t);
    const bank = createSandboxBankingProvider({ activationDelayMs: 10, now });
    const declined = await bank.openAccount(request("va-3", "Ada decline", now()));
    const accepted = await bank.openAccount(request("va-4", "Ada Declined", now()));
    t += 10;
    expect(await bank.getAccountStatus(declined.providerAccountId)).toEqual({
      status: "FAILED",
      reason: SANDBOX_BANKING_DECLINE_REASON,
    });
    expect(await bank.getAccountStatus(accepted.providerAccountId)).toEqual({ status: "ACTIVE" });
  });
});
