import { ForbiddenError, NotFoundError } from "@mp/core";
import { defineIdempotentPost } from "../http/idempotent-routes.ts";
import { defineNestedListRoute } from "../http/read-routes.ts";
import { type AnyRoute, defineRoute } from "../http/route.ts";
import { bankDepositResource, sandboxBankDepositBody } from "./bank-deposit-schemas.ts";
import { listBankDeposits } from "./bank-deposit-store.ts";
import { creditBankDeposit } from "./credit-bank-deposit.ts";
import { askBankForAccount, openVirtualAccount } from "./open-virtual-account.ts";
import { createVirtualAccountBody, virtualAccountIdParams, virtualAccountResource } from "./virtual-account-schemas.ts";
import { findVirtualAccount, presentVirtualAccount } from "./virtual-account-store.ts";

/** Deposit instructions are bank details: no cache (browser, proxy) may keep any answer about them. */
const NO_STORE = { "Cache-Control": "no-store" };

export const createVirtualAccountRoute = defineRoute({
  method: "post",
  path: "/v1/virtual-accounts",
  operationId: "createVirtualAccount",
  summary:
    "Open the customer's USD virtual account (Tier-2-verified customers): 201 when opened, 200 with the live account when it already has one; masked instructions",
  tag: "Virtual accounts",
  auth: true,
  idempotent: true,
  body: createVirtualAccountBody,
  response: virtualAccountResource,
  successStatus: 201,
  errorStatuses: [404, 422, 503],
  // The bank is asked here, before the transaction: never while the customer's row is locked.
  async prepare({ merchant, body, deps }) {
    const asked = await askBankForAccount(deps, {
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      currency: body.currency,
    });
    return { asked, release: () => undefined };
  },
  async handler({ merchant, body, sql, deps, res, prepared, idempotencyKey }) {
    res.set(NO_STORE);
    const { account, created } = await openVirtualAccount(sql, deps, {
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      currency: body.currency,
      asked: prepared.asked,
      idempotencyKey,
    });
    return created
      ? { status: 201, data: account, message: "Virtual account is being provisioned" }
      : { status: 200, data: account, message: "The customer already has a live USD virtual account" };
  },
});

export const getVirtualAccountRoute = defineRoute({
  method: "get",
  path: "/v1/virtual-accounts/{virtual_account_id}",
  operationId: "getVirtualAccount",
  summary:
    "Retrieve a virtual account: full deposit instructions while ACTIVE, masked otherwise (Cache-Control: no-store)",
  tag: "Virtual accounts",
  auth: true,
  params: virtualAccountIdParams,
  response: virtualAccountResource,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ merchant, params, sql, deps, res }) {
    // Set first, so error answers carry it too.
    res.set(NO_STORE);
    const row = await findVirtualAccount(sql, merchant.merchantId, params.virtual_account_id);
    if (!row) throw new NotFoundError("Virtual account");
    return { status: 200, data: presentVirtualAccount(row, deps.encryption, "full-when-active") };
  },
});

export const listBankDepositsRoute = defineNestedListRoute({
  path: "/v1/virtual-accounts/{virtual_account_id}/deposits",
  operationId: "listVirtualAccountDeposits",
  summary: "List the bank deposits received on a virtual account, newest first",
  tag: "Virtual accounts",
  params: virtualAccountIdParams,
  parent: findVirtualAccount,
  notFound: "Virtual account",
  item: bankDepositResource,
  read: listBankDeposits,
});

export const sandboxBankDepositRoute = defineIdempotentPost({
  path: "/v1/sandbox/bank-deposits",
  operationId: "simulateBankDeposit",
  summary:
    "Sandbox keys only: simulate an incoming bank transfer to an ACTIVE virtual account, crediting the USD balance",
  tag: "Sandbox",
  body: sandboxBankDepositBody,
  response: bankDepositResource,
  successStatus: 201,
  errorStatuses: [403, 404, 409],
  message: "Bank deposit received and credited",
  async perform({ merchant, body, sql, deps, idempotencyKey }) {
    // Simulated money never reaches a production ledger: refused for production keys and deployments.
    if (merchant.environment !== "sandbox" || deps.environment !== "sandbox") {
      throw new ForbiddenError("Simulated bank deposits are only available with sandbox API keys");
    }
    return creditBankDeposit(sql, {
      merchantId: merchant.merchantId,
      virtualAccountId: body.virtual_account_id,
      amount: body.amount,
      reference: body.reference ?? null,
      idempotencyKey,
    });
  },
});

export const virtualAccountRoutes: AnyRoute[] = [
  createVirtualAccountRoute,
  getVirtualAccountRoute,
  listBankDepositsRoute,
  sandboxBankDepositRoute,
];
