import type { Logger } from "@mp/core";
import { AHEAD_HORIZON_MS, claimDepth, type DepthLimits, type LanePlan, minClaimOf } from "./claim-depth.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";

/** One endpoint's share of this process: claimed and not finished, sending now, claimed and waiting. */
interface Lane {
  claimed: number;
  /** The rows being sent, with when each started (performance.now()). */
  sending: Map<ClaimedDelivery, number>;
  waiting: ClaimedDelivery[];
  /** Moving mean of its requests' duration (ms); undefined until one finished. */
  meanMs: number | undefined;
  /** When it last held nothing (performance.now()); undefined while it holds deliveries. */
  emptySince: number | undefined;
}

/** What the claim needs to know of one endpoint this process holds deliveries of. */
export interface DeliveryLanes {
  /** Forgets the endpoints that have held nothing for longer than AHEAD_HORIZON_MS: their pace is no longer news. */
  forgetIdle(): void;
  /** Per endpoint held (or emptied within the horizon), what it holds and may hold. */
  plan(): Map<string, LanePlan>;
  /** Counts freshly claimed rows against their endpoints (before they can start). */
  hold(rows: readonly ClaimedDelivery[]): void;
  /** Queues held rows on their endpoints and starts what each endpoint's cap allows. */
  start(rows: readonly ClaimedDelivery[]): void;
  /**
   * Takes, from each endpoint with a request in flight for longer than AHEAD_HORIZON_MS, the rows
   * waiting beyond its base depth (to give back): an endpoint that was fast and hangs now keeps no
   * more than a slow one would.
   */
  shed(): ClaimedDelivery[];
  /** Takes the rows held and not started (on stop, to give them back). */
  takeWaiting(): ClaimedDelivery[];
  /** Resolves when the deliveries started so far have finished. */
  settled(): Promise<unknown>;
}

export interface DeliveryLanesOptions {
  limits: DepthLimits;
  deliver: (row: ClaimedDelivery) => Promise<void>;
  logger: Logger;
  stopping: () => boolean;
  /** Called each time a delivery finishes (a slot is free): true when its endpoint can be claimed for again. */
  finished: (claimable: boolean) => void;
}

/** Weight of the newest request in an endpoint's moving mean. */
const MEAN_WEIGHT = 0.2;

/**
 * Per endpoint, at most `perEndpoint` requests in flight. More than it sends are claimed ahead, so its
 * next requests never wait for a claim's round trip: `perEndpoint` more for an endpoint not known
 * fast, so a hanging endpoint's waiting rows wait at most one deadline, well inside the lease; up to
 * `maxDepth` for one whose requests all finish fast, whose waiting rows are given back (shed) as soon
 * as one of its requests runs past AHEAD_HORIZON_MS.
 */
export function createDeliveryLanes(options: DeliveryLanesOptions): DeliveryLanes {
  const { limits, logger } = options;
  const { perEndpoint } = limits;
  const lanes = new Map<string, Lane>();
  const running = new Set<Promise<void>>();
  const depthOf = (lane: Lane) => claimDepth(limits, lane.meanMs);

  /** Starts the endpoint's waiting deliveries while it sends fewer than its cap. */
  function pump(endpointId: string, lane: Lane) {
    while (lane.sending.size < perEndpoint && !options.stopping()) {
      const next = lane.waiting.shift();
      if (!next) break;
      const started = performance.now();
      lane.sending.set(next, started);
      const delivery = options
        .deliver(next)
        .catch((error: unknown) => logger.error({ err: String(error), endpointId }, "webhook delivery crashed"))
        .finally(() => {
          running.delete(delivery);
          lane.sending.delete(next);
          const tookMs = performance.now() - started;
          lane.meanMs = lane.meanMs === undefined ? tookMs : lane.meanMs + MEAN_WEIGHT * (tookMs - lane.meanMs);
          lane.claimed--;
          // An emptied lane is kept a while with its pace: a fast endpoint whose backlog outran a claim's
          // round trip is claimed for again at its depth, not at the base depth of an unknown one.
          if (lane.claimed === 0) lane.emptySince = performance.now();
          else pump(endpointId, lane);
          const depth = depthOf(lane);
          options.finished(lane.claimed <= depth - minClaimOf(limits, depth));
        });
      running.add(delivery);
    }
  }

  return {
    forgetIdle() {
      const now = performance.now();
      for (const [id, lane] of lanes) {
        if (lane.emptySince !== undefined && now - lane.emptySince > AHEAD_HORIZON_MS) lanes.delete(id);
      }
    },
    plan() {
      const plan = new Map<string, LanePlan>();
      for (const [id, lane] of lanes) {
        const depth = depthOf(lane);
        plan.set(id, { claimed: lane.claimed, depth, minClaim: minClaimOf(limits, depth) });
      }
      return plan;
    },
    hold(rows) {
      for (const row of rows) {
        const lane: Lane = lanes.get(row.endpoint_id) ?? {
          claimed: 0,
          sending: new Map(),
          waiting: [],
          meanMs: undefined,
          emptySince: undefined,
        };
        lane.claimed++;
        lane.emptySince = undefined;
        lanes.set(row.endpoint_id, lane);
      }
    },
    start(rows) {
      for (const row of rows) {
        const lane = lanes.get(row.endpoint_id);
        lane?.waiting.push(row);
        if (lane) pump(row.endpoint_id, lane);
      }
    },
    shed() {
      const now = performance.now();
      const shed: ClaimedDelivery[] = [];
      for (const lane of lanes.values()) {
        const oldest = Math.min(...lane.sending.values());
        if (!(now - oldest > AHEAD_HORIZON_MS)) continue;
        // Its pace is at least this slow now: the depth falls back to the base.
        lane.meanMs = Math.max(lane.meanMs ?? 0, now - oldest);
        const keep = Math.max(0, 2 * perEndpoint - lane.sending.size);
        if (lane.waiting.length <= keep) continue;
        const taken = lane.waiting.splice(keep);
        lane.claimed -= taken.length;
        shed.push(...taken);
      }
      return shed;
    },
    takeWaiting: () => [...lanes.values()].flatMap((lane) => lane.waiting.splice(0)),
    settled: () => Promise.allSettled([...running]),
  };
}
