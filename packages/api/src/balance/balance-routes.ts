import { z } from "zod";
import { defineReadRoute } from "../http/read-routes.ts";
import { merchantBalance } from "./merchant-balance.ts";

const balanceResource = z.object({
  currency: z.literal("USD"),
  available: z.string().describe("Spendable: credited deposits net of fees, minus reserved"),
  reserved: z.string().describe("Reserved for payouts in flight"),
  held: z
    .string()
    .describe(
      "Confirmed deposits held out of available (a rejected customer's) until an operator releases or returns them",
    ),
  pending: z
    .string()
    .describe("Uncredited deposits at current rates (an asset without a rate is left out); never part of available"),
});

export const getBalanceRoute = defineReadRoute(
  {
    path: "/v1/balance",
    operationId: "getBalance",
    summary: "The merchant's USD balance: available, reserved, held and pending",
    tag: "Balance",
    response: balanceResource,
    errorStatuses: [503],
  },
  async ({ merchant, sql, deps }) => merchantBalance(sql, deps.rates, merchant.merchantId),
);

export const balanceRoutes = [getBalanceRoute];
