import { type AppDeps, parseOrThrow } from "@mp/api";
import { ConflictError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { recordAudit } from "@mp/db";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { INVITABLE_ROLES } from "./roles.ts";
import { visibleMerchant } from "./v1-route.ts";

const RoleChange = z.strictObject({ role: z.enum(INVITABLE_ROLES) });
const memberId = (req: Request) =>
  parseOrThrow(z.object({ userId: z.uuid("must be a UUID") }), req.params, "path").userId;

/** A merchant keeps at least one owner: a change that would leave none is refused (409). */
async function assertAnotherOwner(sql: Queryable, merchantId: string, userId: string): Promise<void> {
  const { rows } = await sql.query(
    `SELECT 1 FROM dashboard_users
      WHERE merchant_id = $1 AND role = 'owner' AND disabled_at IS NULL AND id <> $2 FOR UPDATE`,
    [merchantId, userId],
  );
  if (rows.length === 0) throw new ConflictError("A merchant keeps at least one owner: make another user owner first");
}

/** The member (locked), if `userId` is a current user of this merchant. */
async function findMember(sql: Queryable, merchantId: string, userId: string) {
  const { rows } = await sql.query<{ id: string; email: string; role: string }>(
    `SELECT id, email, role FROM dashboard_users
      WHERE id = $1 AND merchant_id = $2 AND disabled_at IS NULL FOR UPDATE`,
    [userId, merchantId],
  );
  return rows[0];
}

/**
 * The team page's changes, owner (or admin) only, each audited in its transaction: a user's role
 * (their open sessions follow at their next request, which reads the role); removing a user (their
 * account disabled, their sessions ended at once) or withdrawing an open invite. Another merchant's
 * user or invite is 404; the last owner can be neither demoted nor removed (409), and nobody
 * removes themselves here.
 */
export function teamRoutes(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;

  router.patch("/merchants/:merchantId/users/:userId", async (req: Request, res: Response) => {
    const { user, merchantId } = await visibleMerchant(db, req, res, "users:invite");
    const userId = memberId(req);
    const { role } = parseOrThrow(RoleChange, req.body ?? {}, "body");
    const changed = await db.tx(async (sql) => {
      const member = await findMember(sql, merchantId, userId);
      if (!member) throw new NotFoundError("User");
      if (member.role === "owner" && role !== "owner") await assertAnotherOwner(sql, merchantId, userId);
      await sql.query("UPDATE dashboard_users SET role = $2 WHERE id = $1", [userId, role]);
      await recordAudit(sql, {
        actor: dashboardActor(user.email),
        action: "dashboard_user.role_changed",
        objectType: "dashboard_user",
        objectId: userId,
        details: { merchant_id: merchantId, from: member.role, to: role },
      });
      return { id: userId, email: member.email, role };
    });
    res.json(changed);
  });

  router.delete("/merchants/:merchantId/users/:userId", async (req: Request, res: Response) => {
    const { user, merchantId } = await visibleMerchant(db, req, res, "users:invite");
    const userId = memberId(req);
    if (userId === user.id) throw new ConflictError("You cannot remove yourself; another owner can");
    const removed = await db.tx(async (sql) => {
      const member = await findMember(sql, merchantId, userId);
      if (member) {
        if (member.role === "owner") await assertAnotherOwner(sql, merchantId, userId);
        await sql.query("UPDATE dashboard_users SET disabled_at = now() WHERE id = $1", [userId]);
        await sql.query("DELETE FROM dashboard_sessions WHERE user_id = $1", [userId]);
        await recordAudit(sql, {
          actor: dashboardActor(user.email),
          action: "dashboard_user.removed",
          objectType: "dashboard_user",
          objectId: userId,
          details: { merchant_id: merchantId, email: member.email },
        });
        return "user";
      }
      const invite = await sql.query(
        `UPDATE dashboard_invites SET ended_at = now()
          WHERE id = $1 AND merchant_id = $2 AND ended_at IS NULL RETURNING email`,
        [userId, merchantId],
      );
      if ((invite.rowCount ?? 0) === 0) return undefined;
      await recordAudit(sql, {
        actor: dashboardActor(user.email),
        action: "dashboard_invite.withdrawn",
        objectType: "dashboard_invite",
        objectId: userId,
        details: { merchant_id: merchantId },
      });
      return "invite";
    });
    if (!removed) throw new NotFoundError("User");
    res.json({ id: userId, removed });
  });
  return router;
}
