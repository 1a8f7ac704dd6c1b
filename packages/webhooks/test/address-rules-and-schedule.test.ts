import { describe, expect, it } from "vitest";
import { nextRetryDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from "../src/retry-schedule.ts";
import { refusedAddress } from "../src/url-guard.ts";

describe("receiver address rules", () => {
  const refusedEverywhere = [
    "10.0.0.1",
    "172.31.255.255",
    "192.168.0.10",
    "100.64.0.1",
    "100.100.100.200",
    "169.254.169.254",
    "168.63.129.16",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "fd00:ec2::254",
    "fc00::1",
    "fe80::1",
    "::",
    "ff02::1",
    "::ffff:10.0.0.1",
    "::ffff:a9fe:a9fe",
    "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::1",
  ];
  it.each(refusedEverywhere)("refuses %s in production and in a sandbox", (address) => {
    expect(refusedAddress(address, "production")).toBeDefined();
    expect(refusedAddress(address, "sandbox")).toBeDefined();
  });

  it.each(["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1"])(
    "refuses loopback %s in production only",
    (address) => {
      expect(refusedAddress(address, "production")).toMatch(/loopback/);
      expect(refusedAddress(address, "sandbox")).toBeUndefined();
    },
  );

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:93.184.216.34", "172.32.0.1", "100.128.0.1"])(
    "allows public %s",
    (address) => {
      expect(refusedAddress(address, "production")).toBeUndefined();
    },
  );
});

describe("retry schedule", () => {
  it("spans about three days in nine jittered steps, then gives up", () => {
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeGreaterThan(72);
    expect(total / 3_600_000).toBeLessThan(80);
    expect(nextRetryDelayMs(1, RETRY_DELAYS_MS, undefined, () => 0)).toBe(4_500);
    expect(nextRetryDelayMs(1, RETRY_DELAYS_MS, undefined, () => 1)).toBe(5_500);
    expect(nextRetryDelayMs(9, RETRY_DELAYS_MS, undefined, () => 0.5)).toBe(24 * 3_600_000);
    expect(nextRetryDelayMs(10, RETRY_DELAYS_MS)).toBeUndefined();
  });

  it("waits at least a Retry-After, capped at a day", () => {
    expect(nextRetryDelayMs(1, RETRY_DELAYS_MS, 60_000, () => 0.5)).toBe(60_000);
    expect(nextRetryDelayMs(3, RETRY_DELAYS_MS, 1_000, () => 0.5)).toBe(30 * 60_000);
    expect(nextRetryDelayMs(1, RETRY_DELAYS_MS, 10 * 24 * 3_600_000, () => 0.5)).toBe(24 * 3_600_000);
    expect(parseRetryAfter("120")).toBe(120_000);
    expect(parseRetryAfter("Wed, 25 Nov 2026 10:01:00 GMT", Date.parse("2026-11-25T10:00:00Z"))).toBe(60_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
