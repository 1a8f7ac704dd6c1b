import {
  type CreatedMerchant,
  createMerchant,
  keysRevoked,
  listMerchants,
  type MerchantSummary,
  parseOrThrow,
  setMerchantDisabled,
} from "@mp/api";
import { NotFoundError } from "@mp/core";
import type { Database } from "@mp/db";
import { recordAudit } from "@mp/db";
import { Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { createInvite } from "./invites.ts";
import { merchantIdParam } from "./merchant-param.ts";
import { passwordLinkUrl } from "./password-links.ts";
import { userWith } from "./require-session.ts";

const NewMerchant = z.strictObject({
  name: z.string().trim().min(1).max(200),
  environment: z.enum(["sandbox", "production"]),
  // Its first user, an owner invited at once (the link is in the answer), so nobody needs the CLI.
  owner_email: z.email("must be an email address").max(320).optional(),
});

/** A merchant as the operator's list shows it, disabled ones marked. */
export function managedMerchantView(m: MerchantSummary) {
  return { id: m.id, name: m.name, environment: m.environment, created_at: m.createdAt, disabled_at: m.disabledAt };
}

/** A merchant just created: its first API key and its owner's invitation link leave once, in this answer. */
export function createdMerchantView(
  created: CreatedMerchant,
  name: string,
  ownerInvite: { email: string; password_link: string } | null,
) {
  return {
    id: created.merchantId,
    name,
    environment: created.environment,
    api_key: created.key.apiKey,
    owner_invite: ownerInvite,
  };
}

/**
 * The operator's merchants: list (disabled ones marked), create (as `payments merchants create`,
 * the first key shown once, its first owner invited when an email is given) and disable or enable; a disabled merchant's keys answer 401 on /v1.
 */
export function operatorMerchantRoutes(db: Database): Router {
  const router = Router();

  router.get("/operator/merchants", async (_req, res) => {
    userWith(res, "operator");
    const merchants = await listMerchants(db);
    res.json({ items: merchants.map(managedMerchantView) });
  });

  router.post("/operator/merchants", async (req, res) => {
    const user = userWith(res, "operator");
    const body = parseOrThrow(NewMerchant, req.body, "body");
    const created = await createMerchant(db, { name: body.name, environment: body.environment });
    // createMerchant commits on its own (its counter lock); the audit line follows it.
    await recordAudit(db, {
      actor: dashboardActor(user.email),
      action: "merchant.created",
      objectType: "merchant",
      objectId: created.merchantId,
      details: { name: body.name, environment: body.environment, api_key_prefix: created.key.prefix },
    });
    // The invite is its own transaction after the merchant's (audited as dashboard_invite.created);
    // the email is already validated, so only a database failure could leave the merchant without it.
    const invite = body.owner_email
      ? await createInvite(db, {
          merchantId: created.merchantId,
          email: body.owner_email,
          role: "owner",
          actor: dashboardActor(user.email),
        })
      : undefined;
    const ownerInvite = invite
      ? { email: invite.email, password_link: passwordLinkUrl(`${req.protocol}://${req.get("host")}`, invite.token) }
      : null;
    res.set("Cache-Control", "no-store");
    res.status(201).json(createdMerchantView(created, body.name, ownerInvite));
  });

  for (const [action, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    router.post(`/operator/merchants/:merchantId/${action}`, async (req, res) => {
      const user = userWith(res, "operator");
      const merchantId = merchantIdParam(req);
      const found = await db.tx(async (client) => {
        if (!(await setMerchantDisabled(client, merchantId, disabled))) return false;
        await recordAudit(client, {
          actor: dashboardActor(user.email),
          action: `merchant.${action}d`,
          objectType: "merchant",
          objectId: merchantId,
        });
        return true;
      });
      // Committed: this process's API stops trusting the keys it verified before (key-revocations.ts).
      if (disabled) keysRevoked();
      if (!found) throw new NotFoundError("Merchant");
      const [merchant] = await listMerchants(db, merchantId);
      res.json({ id: merchantId, disabled_at: merchant?.disabledAt ?? null });
    });
  }

  return router;
}
