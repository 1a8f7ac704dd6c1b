import type { Logger } from "@mp/core";
import type { Database } from "@mp/db";
import pg from "pg";

/** The channel the fan-out trigger (migration 0078) and the enqueue paths notify. */
export const DELIVERY_CHANNEL = "webhook_deliveries";

export interface DeliveryListener {
  close(): Promise<void>;
}

/**
 * Calls `wake` on each NOTIFY of the delivery channel, on a real server (the embedded database has
 * no LISTEN across connections: the worker's poll is its only wake-up). A lost connection is opened
 * again; meanwhile the poll carries on alone.
 */
export async function listenForDeliveries(
  db: Database,
  logger: Logger,
  wake: () => void,
  stopping: () => boolean,
): Promise<DeliveryListener> {
  let listener: pg.Client | undefined;
  const listen = async (): Promise<void> => {
    if (db.engine !== "postgresql" || stopping()) return;
    const client = new pg.Client({ connectionString: db.connectionString });
    client.on("notification", wake);
    client.on("error", (error) => {
      logger.warn({ err: error.message }, "webhook listener lost; polling until it reconnects");
      listener = undefined;
      client.end().catch(() => {});
      setTimeout(() => void listen().catch(() => {}), 1_000).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
      listener = client;
    } catch (error) {
      logger.warn({ err: String(error) }, "webhook listener could not connect; polling");
      await client.end().catch(() => {});
      setTimeout(() => void listen().catch(() => {}), 5_000).unref();
    }
  };
  await listen();
  return {
    async close() {
      await listener?.end().catch(() => {});
    },
  };
}
