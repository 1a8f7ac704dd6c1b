import { createHash } from "node:crypto";
import { NotFoundError } from "@mp/core";
import { abaCheckDigit, ibanCheckDigits } from "./bank-identifiers.ts";
import type {
  BankAccountRequest,
  BankDepositInstructions,
  BankingProvider,
  BankPayoutRequest,
  BankPayoutStatus,
} from "./banking-provider.ts";

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
 *
 * Payouts are asynchronous the same way, timed from the request (`payoutDelayMs`, default 2 s):
 * PENDING for the first half of the delay, SENT for the second, then COMPLETED. Magic values, by
 * the payee's account number (SANDBOX_PAYOUT_MAGIC):
 *   ends in 0002  the payout FAILS when the delay is over (R02 account closed): no money left
 *   ends in 0003  the payout COMPLETES, then is RETURNED one more delay later (R03 no account)
 * Any other account number completes.
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

export const SANDBOX_PAYOUT_MAGIC = {
  failSuffix: "0002",
  failReason: "R02 Account closed: the payee's bank refused the payout",
  returnSuffix: "0003",
  returnReason: "R03 No account/unable to locate account: the payee's bank returned the payout",
} as const;

const PAYOUT_ID = /^po_sbx_[0-9a-f]{24}\.([cfr])\.([0-9a-z]+)$/;

function payoutOutcome(request: BankPayoutRequest): "c" | "f" | "r" {
  const account = request.creditor.accountNumber;
  if (account.endsWith(SANDBOX_PAYOUT_MAGIC.failSuffix)) return "f";
  if (account.endsWith(SANDBOX_PAYOUT_MAGIC.returnSuffix)) return "r";
  return "c";
}

/** Where a sandbox payout sent at `sentAt` with `outcome` is at `now`. */
function payoutStatusAt(outcome: string, sentAt: number, delayMs: number, now: number): BankPayoutStatus {
  if (now < sentAt + delayMs / 2) return { status: "PENDING" };
  if (now < sentAt + delayMs) return { status: "SENT" };
  if (outcome === "f") return { status: "FAILED", reason: SANDBOX_PAYOUT_MAGIC.failReason };
  if (outcome === "r" && now >= sentAt + 2 * delayMs) {
    return { status: "RETURNED", reason: SANDBOX_PAYOUT_MAGIC.returnReason };
  }
  return { status: "COMPLETED" };
}

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
  options: { activationDelayMs?: number; payoutDelayMs?: number; now?: () => Date } = {},
): BankingProvider {
  const activationDelayMs = options.activationDelayMs ?? 3_000;
  const payoutDelayMs = options.payoutDelayMs ?? 2_000;
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
    async sendPayout(request) {
      const hash = createHash("sha256").update(`payout:${request.payoutId}`).digest("hex").slice(0, 24);
      // Timed from the request, not the clock: a repeated send is the very same payout.
      const sentAt = request.requestedAt.getTime();
      const outcome = payoutOutcome(request);
      return {
        providerPayoutId: `po_sbx_${hash}.${outcome}.${sentAt.toString(36)}`,
        status: payoutStatusAt(outcome, sentAt, payoutDelayMs, now().getTime()),
      };
    },
    async getPayoutStatus(providerPayoutId) {
      const match = PAYOUT_ID.exec(providerPayoutId);
      if (!match) throw new NotFoundError("Payout");
      return payoutStatusAt(match[1] ?? "c", Number.parseInt(match[2] ?? "0", 36), payoutDelayMs, now().getTime());
    },
  };
}
