import type { Logger } from "@mp/core";
import type { Lease } from "./leases.ts";

export interface Held {
  lease: Lease;
  /** performance.now() after which the lease no longer counts as held here. */
  validUntil: number;
}

/**
 * The leases this process holds, each counted as held only until `validMs` after its last renewal
 * was sent: the database set its expiry later than that, so a holder that cannot reach the database
 * stops using a lease before the database lets anyone else take it.
 */
export interface HeldLeases {
  readonly size: number;
  get(name: string): Held | undefined;
  has(name: string): boolean;
  names(): string[];
  /** Records a lease taken or renewed at `sentAt` (when its statement was sent). */
  set(lease: Lease, sentAt: number): void;
  /** Counts a held lease valid again from `sentAt` (its renewal's); one dropped meanwhile stays dropped. */
  renewed(h: Held, sentAt: number): void;
  delete(name: string): void;
  /** Takes them all (given up at once). */
  takeAll(): Held[];
  /** The leases still valid here; those whose time ran out are dropped (and logged). */
  valid(): Held[];
}

export function createHeldLeases(logger: Logger, validMs: number): HeldLeases {
  const held = new Map<string, Held>();
  return {
    get size() {
      return held.size;
    },
    get: (name) => held.get(name),
    has: (name) => held.has(name),
    names: () => [...held.keys()],
    set(lease, sentAt) {
      held.set(lease.name, { lease, validUntil: sentAt + validMs });
    },
    renewed(h, sentAt) {
      h.validUntil = sentAt + validMs;
    },
    delete(name) {
      held.delete(name);
    },
    takeAll() {
      const all = [...held.values()];
      held.clear();
      return all;
    },
    valid() {
      const now = performance.now();
      for (const [name, h] of held) {
        if (now >= h.validUntil) {
          held.delete(name);
          logger.warn({ lease: name, epoch: h.lease.epoch.toString() }, "lease not renewed in time: no longer leading");
        }
      }
      return [...held.values()];
    },
  };
}
