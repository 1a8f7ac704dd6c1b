import { FUNDING_MODES, INTENT_STATUSES, SOURCE_METHODS, TRANSFER_STATUSES } from "@mp/transfers";
import { z } from "zod";
import { rfc3339 } from "../customers/customer-schemas.ts";
import { moneySchema, quoteTerms, rateSchema } from "../quotes/quote-schemas.ts";

export const createTransferBody = z.strictObject({ quote_id: z.uuid("must be a UUID") });

export const transferIdParams = z.object({ id: z.uuid("must be a UUID") });

export const listTransfersQuery = z.object({
  status: z.enum(TRANSFER_STATUSES).optional(),
  customer_id: z.uuid("must be a UUID").optional(),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
});

/** A customer's payment sent back to its payer (docs/returns.md), as the transfer shows it. */
const transferReturn = z.object({
  deposit_id: z.uuid().describe("The payment sent back (a bank deposit's id when it goes back by bank)"),
  origin: z
    .enum(["held", "late_funding", "excess", "failed_payout"])
    .describe("Why: it came late, it was an over-payment's excess, or the transfer's payout failed"),
  state: z
    .enum(["payable", "sending", "returned", "failed", "closed"])
    .describe(
      "payable: owed, nothing under way (reason says why); sending: sent, not yet confirmed; returned; by bank also failed (the bank refused it: still owed) and closed (an operator gave it up)",
    ),
  amount: moneySchema.nullable().describe("What the payer gets: the payment less the network fee; null while payable"),
  network_fee: moneySchema.describe("The network fee taken from the payment"),
  destination: z.object({
    type: z
      .enum(["CRYPTO_ADDRESS", "BANK_ACCOUNT"])
      .describe("BANK_ACCOUNT: back by bank (network ACH) to the payer's account, not shown (address null)"),
    network: z.string(),
    address: z.string().nullable().describe("The payment's sender; null while a refund address is awaited (Bitcoin)"),
  }),
  reason: z.string().nullable(),
  tx_hash: z.string().nullable().describe("The return's transaction once it is in a block"),
  created_at: z.iso.datetime(),
  returned_at: z.iso.datetime().nullable(),
});

export const transferResource = z.object({
  id: z.uuid(),
  quote_id: z.uuid(),
  customer_id: z.uuid(),
  status: z.enum(TRANSFER_STATUSES),
  funding_mode: z.enum(FUNDING_MODES),
  ...quoteTerms,
  failure_reason: z
    .string()
    .nullable()
    .describe(
      "Why a FAILED transfer failed (the chain's or the bank's reason, its funding reversed, or its payout given up after retries), or why a REFUNDED transfer's payout came back (the payee's bank's reason, e.g. an ACH code); null otherwise",
    ),
  returns: z
    .array(transferReturn)
    .describe("The customer's payments sent back to their payers under the merchant's return policy, oldest first"),
  expires_at: z.iso.datetime().describe("Unfunded by then, the transfer expires: never executed at a stale rate"),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type TransferResource = z.infer<typeof transferResource>;

const payer = z.object({
  type: z.enum(["CUSTOMER", "MERCHANT"]),
  customer_id: z.string().nullable().describe("The paying customer; null when the merchant pays"),
});

/** Spec 2.9, exactly: these fields and no others. */
export const transferFundingResource = z.strictObject({
  transfer_id: z.uuid(),
  transfer_status: z.enum(TRANSFER_STATUSES),
  customer_id: z.uuid(),
  funding: z.strictObject({
    mode: z.enum(FUNDING_MODES),
    method: z.enum(SOURCE_METHODS),
    expires_at: z.iso.datetime(),
    payer,
    rate: rateSchema,
    required_amount: moneySchema,
    fee: moneySchema,
  }),
  intent: z.strictObject({
    id: z.uuid(),
    status: z.enum(INTENT_STATUSES),
    purpose: z.enum(FUNDING_MODES),
    method: z.enum(SOURCE_METHODS),
    payer,
    required_amount: moneySchema,
    reusable: z.boolean(),
    expires_at: z.iso.datetime(),
    bank_transfer: z
      .strictObject({
        account_name: z.string(),
        account_number: z.string(),
        bank_code: z.string().describe("ABA routing number"),
        bank_name: z.string(),
        narration: z.string(),
        reference: z.string().describe("Quote it with the payment: credits naming it fund this intent"),
      })
      .nullable()
      .describe(
        "BANK_TRANSFER: where the customer pays (its USD virtual account); null while being provisioned (no ACTIVE account yet): poll",
      ),
    crypto_deposit: z
      .strictObject({
        address: z.string().describe("A fresh address of ours on `network`, for this intent only"),
        asset: z.string().describe("The quoted asset: other assets sent there do not fund the intent"),
        memo: z.string().describe('"" on every supported chain: the address alone names the intent'),
        network: z.string().describe("Chain id (BASE, TRON, BITCOIN, ...)"),
        reference: z.string().describe("The intent's reference, for the payer's records"),
      })
      .nullable()
      .describe(
        "CRYPTO_DEPOSIT: where the customer pays; confirmed deposits there fund the intent. null while the address is being provisioned: poll",
      ),
    flag: z
      .strictObject({ code: z.enum(["AMOUNT_MISMATCH", "LATE_PAYMENT", "FUNDING_REVERSED"]), message: z.string() })
      .nullable()
      .describe(
        "AMOUNT_MISMATCH: received less (or more) than required, the message names the amounts; LATE_PAYMENT: a payment after the intent ended (added to the merchant's available balance, or sent back to its payer under the merchant's return policy); FUNDING_REVERSED: a chain reorganisation removed a funding deposit",
      ),
  }),
});
export type TransferFundingResource = z.infer<typeof transferFundingResource>;
