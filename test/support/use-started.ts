import { afterAll, beforeAll } from "vitest";
import { late } from "./late.ts";

/**
 * Something the calling test file (or describe block) starts in its beforeAll and stops in its
 * afterAll: a node, a database, a harness. Named at the top before it exists (see late).
 */
export function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started) await stop(started);
  });
  return late(what, () => started);
}
