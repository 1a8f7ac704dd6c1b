import type { Logger } from "@mp/core";
import type pg from "pg";
import type { Queryable } from "./database-contract.ts";
import type { HeldLeases } from "./held-leases.ts";
import { heartbeat } from "./lease-shares.ts";
import { releaseLease, renewLeases } from "./leases.ts";

/** Who a lease keeper is, as its rounds (renewal, balance) need it. */
export interface KeeperSelf {
  holder: string;
  role: string;
  seconds: number;
  logger: Logger;
}

/** The heartbeat, then every valid lease renewed; those the database no longer gives us are dropped. Returns when it was sent. */
export async function renew(
  c: pg.PoolClient,
  held: HeldLeases,
  self: KeeperSelf & { host: string; wants: string[] },
): Promise<number> {
  const sentAt = performance.now();
  const mine = held.valid();
  await heartbeat(c, { id: self.holder, role: self.role, host: self.host, wants: self.wants, seconds: self.seconds });
  const renewed = await renewLeases(
    c,
    mine.map((h) => h.lease),
    self.seconds,
  );
  for (const h of mine) {
    if (renewed.has(h.lease.name)) {
      held.renewed(h, sentAt);
    } else if (held.get(h.lease.name) === h) {
      held.delete(h.lease.name);
      self.logger.warn(
        { lease: h.lease.name, epoch: h.lease.epoch.toString() },
        "lease lost: another process leads it now",
      );
    }
  }
  return sentAt;
}

/** Hands a held lease over (a standby takes it at its next poll); one not released expires within the bound. */
export async function giveUp(held: HeldLeases, name: string, q: Queryable, logger: Logger): Promise<void> {
  const h = held.get(name);
  if (!h) return;
  held.delete(name);
  try {
    await releaseLease(q, h.lease);
    logger.info({ lease: name, epoch: h.lease.epoch.toString() }, "lease released");
  } catch (error) {
    // Not released: it expires by itself within the bound.
    logger.warn({ lease: name, err: String(error) }, "could not release the lease");
  }
}
