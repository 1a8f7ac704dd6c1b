import { z } from "zod";

/** A decimal USD amount: up to 12 whole digits and 6 fractional digits, more than zero. */
const usdAmount = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,6})?$/, "must be a decimal USD amount with at most 6 fractional digits, e.g. 100.50")
  .refine((value) => /[1-9]/.test(value), "must be more than zero");

export const sandboxBankDepositBody = z.strictObject({
  virtual_account_id: z.uuid("must be a UUID"),
  amount: usdAmount,
  reference: z.string().trim().min(1, "must not be empty").max(140, "must be at most 140 characters").optional(),
});

export const bankDepositResource = z.object({
  id: z.uuid(),
  virtual_account_id: z.uuid(),
  customer_id: z.uuid(),
  amount: z.string().describe("USD, 6 fractional digits"),
  currency: z.literal("USD"),
  reference: z.string().nullable(),
  status: z.enum(["CREDITED"]),
  credited_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
});
export type BankDepositResource = z.infer<typeof bankDepositResource>;
