import type { Logger } from "@mp/core";
import type { ClaimedDelivery } from "./claimed-delivery.ts";

/** One endpoint's share of this process: claimed and not finished, sending now, claimed and waiting. */
interface Lane {
  claimed: number;
  sending: number;
  waiting: ClaimedDelivery[];
}

export interface DeliveryLanes {
  /** Per endpoint, the deliveries claimed and not finished (sending or waiting). */
  inFlight(): Map<string, number>;
  /** Counts freshly claimed rows against their endpoints (before they can start). */
  hold(rows: readonly ClaimedDelivery[]): void;
  /** Queues held rows on their endpoints and starts what each endpoint's cap allows. */
  start(rows: readonly ClaimedDelivery[]): void;
  /** Takes the rows held and not started (on stop, to give them back). */
  takeWaiting(): ClaimedDelivery[];
  /** Resolves when the deliveries started so far have finished. */
  settled(): Promise<unknown>;
}

export interface DeliveryLanesOptions {
  perEndpoint: number;
  deliver: (row: ClaimedDelivery) => Promise<void>;
  logger: Logger;
  stopping: () => boolean;
  /** Called each time a delivery finishes (a slot is free), with what its endpoint still holds. */
  finished: (endpointClaimed: number) => void;
}

/**
 * Per endpoint, at most `perEndpoint` requests in flight. Up to `perEndpoint` more than it sends are
 * claimed ahead, so its next requests never wait for a claim's round trip; a hanging endpoint's
 * waiting rows wait at most one deadline, well inside the lease.
 */
export function createDeliveryLanes(options: DeliveryLanesOptions): DeliveryLanes {
  const { perEndpoint, logger } = options;
  const lanes = new Map<string, Lane>();
  const running = new Set<Promise<void>>();

  /** Starts the endpoint's waiting deliveries while it sends fewer than its cap. */
  function pump(endpointId: string, lane: Lane) {
    while (lane.sending < perEndpoint && !options.stopping()) {
      const next = lane.waiting.shift();
      if (!next) break;
      lane.sending++;
      const delivery = options
        .deliver(next)
        .catch((error: unknown) => logger.error({ err: String(error), endpointId }, "webhook delivery crashed"))
        .finally(() => {
          running.delete(delivery);
          lane.sending--;
          lane.claimed--;
          if (lane.claimed === 0) lanes.delete(endpointId);
          else pump(endpointId, lane);
          options.finished(lane.claimed);
        });
      running.add(delivery);
    }
  }

  return {
    inFlight: () => new Map([...lanes].map(([id, lane]) => [id, lane.claimed])),
    hold(rows) {
      for (const row of rows) {
        const lane: Lane = lanes.get(row.endpoint_id) ?? { claimed: 0, sending: 0, waiting: [] };
        lane.claimed++;
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
    takeWaiting: () => [...lanes.values()].flatMap((lane) => lane.waiting.splice(0)),
    settled: () => Promise.allSettled([...running]),
  };
}
