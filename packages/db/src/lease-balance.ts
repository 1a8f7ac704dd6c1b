import type pg from "pg";
import type { HeldLeases } from "./held-leases.ts";
import type { KeeperSelf } from "./lease-renewal.ts";
import { observeShares } from "./lease-shares.ts";
import { releaseLease, tryAcquireLease } from "./leases.ts";

/** Free resources to a process holding the fewest; the larger share hands one over. */
export async function balance(
  c: pg.PoolClient,
  held: HeldLeases,
  self: KeeperSelf & { wanted: string[]; stopped: () => boolean },
): Promise<void> {
  const { holder, seconds, logger } = self;
  const { leases, live } = await observeShares(c, self.wanted, self.role);
  const others = live.filter((h) => h.id !== holder);
  let mine = held.valid().length;
  for (const lease of leases) {
    if (held.has(lease.name) || !lease.free || self.stopped()) continue;
    // Another live process that wants it and holds fewer takes it (ties: whoever comes first).
    if (others.some((o) => o.wants.includes(lease.name) && o.held < mine)) continue;
    const sentAt = performance.now();
    const taken = await tryAcquireLease(c, { name: lease.name, holder, seconds });
    if (!taken) continue;
    held.set(taken, sentAt);
    mine++;
    logger.info(
      { lease: lease.name, epoch: taken.epoch.toString(), from: lease.holder, holder },
      "lease acquired: now leading",
    );
  }
  const poorer = (name: string) => others.find((o) => o.wants.includes(name) && o.held + 1 < mine);
  for (const h of held.valid()) {
    const to = poorer(h.lease.name);
    if (!to) continue;
    held.delete(h.lease.name);
    await releaseLease(c, h.lease);
    logger.info({ lease: h.lease.name, holding: mine, to: to.id }, "lease handed over to balance the processes");
    break;
  }
}
