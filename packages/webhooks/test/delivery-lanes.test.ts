import { silentLogger } from "@mp/core";
import { describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/eventually.ts";
import { AHEAD_HORIZON_MS, depthLimits } from "../src/claim-depth.ts";
import type { ClaimedDelivery } from "../src/claimed-delivery.ts";
import { createDeliveryLanes } from "../src/delivery-lanes.ts";

const ENDPOINT = "00000000-0000-4000-8000-000000000001";
let next = 0;
const rows = (count: number) =>
  Array.from({ length: count }, () => ({ id: `d${next++}`, endpoint_id: ENDPOINT }) as ClaimedDelivery);

/** Waits (without a fixed sleep) until `check` returns something, looking every 20 ms. */
const until = <T>(check: () => T | undefined) => eventually(check, 10_000, 20);

/**
 * Adaptive claim depth: an endpoint answering fast is claimed far ahead (few large claims instead of
 * a claim per few requests), and gives its extra waiting rows back as soon as one of its requests
 * runs past the horizon, so a fast endpoint that starts hanging holds no more than a slow one.
 */
describe("delivery lanes", () => {
  const limits = depthLimits(256, 4); // base depth 8, up to 32
  const base = 2 * limits.perEndpoint;

  it("holds an unknown endpoint to twice its sending cap, a fast one up to the maximum depth", async () => {
    let sent = 0;
    const lanes = createDeliveryLanes({
      limits,
      deliver: async () => {
        sent++;
      },
      logger: silentLogger(),
      stopping: () => false,
      finished: () => {},
    });
    const first = rows(base);
    lanes.hold(first);
    expect(lanes.plan().get(ENDPOINT)).toEqual({ claimed: base, depth: base, minClaim: 2 });
    // One more held keeps the lane (and what it learnt) while the first ones finish.
    const keep = rows(1);
    lanes.hold(keep);
    lanes.start(first);
    await until(() => (sent === base ? true : undefined));
    await lanes.settled();
    expect(lanes.plan().get(ENDPOINT)).toEqual({ claimed: 1, depth: limits.maxDepth, minClaim: 14 });
    lanes.start(keep);
    await lanes.settled();
  });

  it("keeps an emptied fast endpoint's depth for the horizon, then forgets it", async () => {
    const lanes = createDeliveryLanes({
      limits,
      deliver: async () => {},
      logger: silentLogger(),
      stopping: () => false,
      finished: () => {},
    });
    const all = rows(base);
    lanes.hold(all);
    lanes.start(all);
    await lanes.settled();
    const emptied = performance.now();
    // Its backlog outran the claim: the next claim refills it at its depth, not at an unknown one's.
    lanes.forgetIdle();
    expect(lanes.plan().get(ENDPOINT)).toEqual({ claimed: 0, depth: limits.maxDepth, minClaim: 14 });
    await until(() => {
      lanes.forgetIdle();
      return lanes.plan().has(ENDPOINT) ? undefined : true;
    });
    expect(performance.now() - emptied).toBeGreaterThanOrEqual(AHEAD_HORIZON_MS * 0.9);
  });

  it("gives back the rows waiting beyond the base depth once a request hangs past the horizon", async () => {
    let hang = false;
    const hung: Array<() => void> = [];
    const lanes = createDeliveryLanes({
      limits,
      deliver: () => (hang ? new Promise<void>((resolve) => hung.push(resolve)) : Promise.resolve()),
      logger: silentLogger(),
      stopping: () => false,
      finished: () => {},
    });
    const warmUp = rows(base);
    const anchor = rows(1);
    lanes.hold([...warmUp, ...anchor]);
    lanes.start(warmUp);
    await lanes.settled();
    expect(lanes.plan().get(ENDPOINT)?.depth).toBe(limits.maxDepth);
    // The endpoint stops answering with a deep claim held: 4 sending, the rest waiting.
    hang = true;
    const deep = rows(limits.maxDepth - 1);
    lanes.hold(deep);
    lanes.start([...anchor, ...deep]);
    expect(hung).toHaveLength(limits.perEndpoint);
    expect(lanes.shed()).toEqual([]); // not past the horizon yet
    const started = performance.now();
    const shed = await until(() => {
      const taken = lanes.shed();
      return taken.length > 0 ? taken : undefined;
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(AHEAD_HORIZON_MS * 0.9);
    // Kept: the base depth (4 sending, 4 waiting); the rest given back, the newest ones.
    expect(shed).toEqual([...anchor, ...deep].slice(base));
    expect(lanes.plan().get(ENDPOINT)).toEqual({ claimed: base, depth: base, minClaim: 2 });
    expect(lanes.takeWaiting()).toHaveLength(base - limits.perEndpoint);
    for (const resolve of hung) resolve();
    await lanes.settled();
  });
});
