import { type AppDeps, depositVolumeByDay, listDepositsAfter, parseOrThrow, rfc3339 } from "@mp/api";
import { CHAIN_IDS } from "@mp/core";
import { DEPOSIT_STATUSES } from "@mp/events";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { streamDepositsCsv } from "./deposits-csv.ts";
import { createInvite, listOpenInvites } from "./invites.ts";
import { passwordLinkUrl } from "./password-links.ts";
import { type DashboardUser, INVITABLE_ROLES } from "./roles.ts";
import { chainNetworksView, SPREADS_PER_REQUEST, transferSpreads } from "./transfer-spreads.ts";
import { listMerchantUsers } from "./user-store.ts";
import { type AuditOf, v1Route, visibleMerchant } from "./v1-route.ts";

/** Days the overview's chart covers. */
export const VOLUME_DAYS = 30;
/** Deposits per page of the deposits page (at most; the page may ask for fewer). */
export const DEPOSIT_PAGE_LIMIT = 100;

/** The deposits page's filters, search and keyset cursor. */
export const depositsQuery = z.strictObject({
  status: z.enum(DEPOSIT_STATUSES).optional(),
  chain: z.enum(CHAIN_IDS).optional(),
  after: z.uuid("must be a deposit id").optional(),
  customer_id: z.uuid("must be a customer id").optional(),
  tx_hash: z.string().trim().min(1).max(200).optional(),
  address: z.string().trim().min(1).max(200).optional(),
  amount: z
    .string()
    .trim()
    .regex(/^\d{1,30}(\.\d{1,36})?$/, "must be a plain decimal amount")
    .optional(),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
  limit: z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(DEPOSIT_PAGE_LIMIT))
    .optional(),
});

const spreadsQuery = z.strictObject({
  ids: z
    .string()
    .transform((ids) => ids.split(","))
    .pipe(z.array(z.uuid("must be transfer ids")).min(1).max(SPREADS_PER_REQUEST)),
});

const inviteBody = z.strictObject({
  email: z.string().trim().min(3).max(320),
  role: z.enum(INVITABLE_ROLES),
});

/** What the sandbox buttons may send: the chains of the deployment's faucets and their assets. */
export function sandboxView(enabled: boolean, faucets: AppDeps["faucets"]) {
  const chains = enabled
    ? Object.values(faucets).map((faucet) => ({ chain: faucet.chain, assets: faucet.assets().map((a) => a.asset) }))
    : [];
  return { enabled, chains };
}

/** An invitation: the invitee and their one-time link to set a password (shown once, to pass on). */
export function inviteView(invited: Pick<DashboardUser, "id" | "email" | "role">, passwordLink: string) {
  return { user: { id: invited.id, email: invited.email, role: invited.role }, password_link: passwordLink };
}

const audited =
  (action: string, objectType: string, idOf: (a: Parameters<AuditOf>[0]) => unknown): AuditOf =>
  (answer) => ({ action, objectType, objectId: String(idOf(answer)) });
const dataId = (a: Parameters<AuditOf>[0]) => (a.data as { id: string }).id;
const endpointId = (a: Parameters<AuditOf>[0]) => a.params.webhook_endpoint_id;

/**
 * The merchant's pages (customers, wallets, deposits, transfers, webhooks, sandbox, team): the /v1
 * routes themselves under /dashboard/api/merchants/{id} (v1Route), plus what only the dashboard
 * needs: the deposits page's keyset pages, the overview's volume by day, which sandbox chains can
 * send, and invitations.
 */
export function merchantPageRoutes(deps: AppDeps): Router {
  const router = Router();
  const reads = [
    "listCustomers",
    "getCustomer",
    "listVerificationSubmissions",
    "listEvents",
    "listWallets",
    "getWallet",
    "getDeposit",
    "listTransfers",
    "getTransfer",
    "getTransferFunding",
    "listLiquidationAddresses",
    "getLiquidationAddress",
    "listLiquidationAddressDrains",
    "listWebhookEndpoints",
    "getWebhookEndpoint",
    "listWebhookEndpointDeliveries",
  ];
  for (const operationId of reads) router.use(v1Route(deps, operationId, "merchant:read"));
  // The webhook writes, each audited: [operation, the audit's action, object type, object id].
  const webhookWrites: ReadonlyArray<[string, string, string, (a: Parameters<AuditOf>[0]) => unknown]> = [
    ["createWebhookEndpoint", "webhook_endpoint.created", "webhook_endpoint", dataId],
    ["updateWebhookEndpoint", "webhook_endpoint.updated", "webhook_endpoint", dataId],
    ["deleteWebhookEndpoint", "webhook_endpoint.deleted", "webhook_endpoint", dataId],
    ["testWebhookEndpoint", "webhook_endpoint.tested", "webhook_endpoint", endpointId],
    ["redeliverEvent", "event.redelivered", "event", (a) => a.params.event_id],
  ];
  for (const [operationId, action, objectType, idOf] of webhookWrites) {
    router.use(v1Route(deps, operationId, "webhooks:write", audited(action, objectType, idOf)));
  }
  router.use(
    v1Route(deps, "simulateDeposit", "sandbox:write", audited("sandbox.deposit_sent", "sandbox_deposit", dataId)),
    v1Route(deps, "simulateBankDeposit", "sandbox:write", audited("sandbox.bank_credit", "bank_deposit", dataId)),
  );

  router.get("/merchants/:merchantId/deposits", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const query = parseOrThrow(depositsQuery, req.query ?? {}, "query");
    const page = await listDepositsAfter(
      deps.db,
      merchantId,
      { ...query, limit: query.limit ?? 25 },
      await deps.indexerStates(),
    );
    res.json(page);
  });

  // Every deposit the page's filters match, as a file the page downloads (a refusal stays in the page).
  router.get("/merchants/:merchantId/deposits.csv", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const { after: _after, limit: _limit, ...search } = parseOrThrow(depositsQuery, req.query ?? {}, "query");
    await streamDepositsCsv(deps.db, res, merchantId, search, await deps.indexerStates());
  });

  router.get("/merchants/:merchantId/deposit-volume", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    res.json({ days: VOLUME_DAYS, items: await depositVolumeByDay(deps.db, merchantId, VOLUME_DAYS) });
  });

  // The transfers page's spread column: what the rate kept besides the fee (transfer-spreads.ts).
  router.get("/merchants/:merchantId/transfer-spreads", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const { ids } = parseOrThrow(spreadsQuery, req.query ?? {}, "query");
    res.json({ items: await transferSpreads(deps.db, merchantId, ids) });
  });

  // Each chain's network, for the deposit page's explorer link (none for a local node).
  router.get("/merchants/:merchantId/chains", async (req: Request, res: Response) => {
    await visibleMerchant(deps.db, req, res, "merchant:read");
    res.json(chainNetworksView(deps.chains, new Set(Object.keys(deps.faucets))));
  });

  // What the sandbox buttons may send: only in a sandbox deployment, for a sandbox merchant.
  router.get("/merchants/:merchantId/sandbox", async (req: Request, res: Response) => {
    const { environment } = await visibleMerchant(deps.db, req, res, "merchant:read");
    res.json(sandboxView(deps.environment === "sandbox" && environment === "sandbox", deps.faucets));
  });

  // The team: its users, then the invites still open (no password yet).
  router.get("/merchants/:merchantId/users", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const [users, invites] = await Promise.all([
      listMerchantUsers(deps.db, merchantId),
      listOpenInvites(deps.db, merchantId),
    ]);
    res.json({ items: [...users, ...invites] });
  });

  // No mail leaves the service: the inviter gets the invitee's one-time link and passes it on. The
  // answer is the same whether the email is new or has an account in another tenant (invites.ts).
  router.post("/merchants/:merchantId/invites", async (req: Request, res: Response) => {
    const { user, merchantId } = await visibleMerchant(deps.db, req, res, "users:invite");
    const body = parseOrThrow(inviteBody, req.body ?? {}, "body");
    const invite = await createInvite(deps.db, {
      email: body.email,
      role: body.role,
      merchantId,
      actor: dashboardActor(user.email),
    });
    res.set("Cache-Control", "no-store");
    res.status(202).json(inviteView(invite, passwordLinkUrl(`${req.protocol}://${req.get("host")}`, invite.token)));
  });
  return router;
}
