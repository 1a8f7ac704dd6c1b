import { createHash } from "node:crypto";
import { NotFoundError } from "@mp/core";
import { abaCheckDigit, ibanCheckDigits } from "./bank-identifiers.ts";
import type { BankAccountRequest, BankDepositInstructions, BankingProvider } from "./banking-provider.ts";

/**
 * Sandbox banking provider: deterministic, offline, asynchronous. An account opened at time t is
 * PROVISIONING until t + `activationDelayMs` (default 3 s), then ACTIVE.
 *
 * Its instructions look like a real US bank's: a routing number with a valid ABA checksum, a
 * 12-digit account number derived from the virtual account id, an IBAN with valid mod-97 check
 * digits and a BIC for international (SWIFT) transfers received through the bank's London branch.
 *
 * Magic value: a beneficiary name containing the word `Decline` (any case; e.g. a verified
 * customer whose last name is Decline) makes the bank refuse the account: FAILED with the reason
 * in SANDBOX_BANKING_DECLINE_REASON.
 *
 * Stateless, like the sandbox KYC provider: the provider account id carries the outcome and the
 * activation time, so accounts survive worker restarts and a repeated open returns the same id.
 */
export const SANDBOX_BANK = {
  name: "Sandbox Bank, N.A.",
  address: "1 Sandbox Plaza, New York, NY 10004, United States",
  routingNumber: `09100001${abaCheckDigit("09100001")}`,
  bic: "SBXBGB2L",
  ibanBankCode: "SBXB",
  sortCode: "400500",
  rails: ["ACH", "WIRE", "SWIFT"],
} as const;

export const SANDBOX_BANKING_DECLINE_WORD = "Decline";
export const SANDBOX_BANKING_DECLINE_REASON = "The bank declined to open an account for this beneficiary";

const ACCOUNT_ID = /^vab_sbx_[0-9a-f]{24}\.([af])\.([0-9a-z]+)$/;

function digits(seed: string, label: string, count: number): string {
  const hex = createHash("sha256").update(`${label}:${seed}`).digest("hex");
  return (BigInt(`0x${hex}`) % 10n ** BigInt(count)).toString().padStart(count, "0");
}

function declines(name: string): boolean {
  return name
    .toLowerCase()
    .split(/[^a-z]+/)
    .includes(SANDBOX_BANKING_DECLINE_WORD.toLowerCase());
}

/** The instructions the sandbox bank issues for one virtual account (pure: same id, same numbers). */
export function sandboxInstructions(request: BankAccountRequest): BankDepositInstructions {
  const id = request.virtualAccountId;
  // A leading 8 keeps the account number 12 digits long whatever the hash gives.
  const accountNumber = `8${digits(id, "account", 11)}`;
  const bban = `${SANDBOX_BANK.ibanBankCode}${SANDBOX_BANK.sortCode}${digits(id, "iban", 8)}`;
  const reference = createHash("sha256").update(`reference:${id}`).digest("hex").slice(0, 10).toUpperCase();
  return {
    accountType: "CHECKING",
    accountNumber,
    routingNumber: SANDBOX_BANK.routingNumber,
    iban: `GB${ibanCheckDigits("GB", bban)}${bban}`,
    bic: SANDBOX_BANK.bic,
    bankName: SANDBOX_BANK.name,
    bankAddress: SANDBOX_BANK.address,
    beneficiaryName: request.beneficiary.name,
    beneficiaryAddress: request.beneficiary.address,
    depositMessage: `SBX${reference}`,
    paymentRails: [...SANDBOX_BANK.rails],
  };
}

export function createSandboxBankingProvider(
  options: { activationDelayMs?: number; now?: () => Date } = {},
): BankingProvider {
  const activationDelayMs = options.activationDelayMs ?? 3_000;
  const now = options.now ?? (() => new Date());
  return {
    name: "sandbox",
    async openAccount(request) {
      const hash = createHash("sha256").update(`account:${request.virtualAccountId}`).digest("hex").slice(0, 24);
      // Timed from the request, not the clock, so a repeated open returns the very same account.
      const activatesAt = request.requestedAt.getTime() + activationDelayMs;
      const outcome = declines(request.beneficiary.name) ? "f" : "a";
      return {
        providerAccountId: `vab_sbx_${hash}.${outcome}.${activatesAt.toString(36)}`,
        instructions: sandboxInstructions(request),
        checkAfterMs: Math.max(0, activatesAt - now().getTime()),
      };
    },
    async getAccountStatus(providerAccountId) {
      const match = ACCOUNT_ID.exec(providerAccountId);
      if (!match) throw new NotFoundError("Bank account");
      if (now().getTime() < Number.parseInt(match[2] ?? "0", 36)) return { status: "PROVISIONING" };
      return match[1] === "f" ? { status: "FAILED", reason: SANDBOX_BANKING_DECLINE_REASON } : { status: "ACTIVE" };
    },
  };
}
