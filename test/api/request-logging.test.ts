import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness } from "../support/api-harness.ts";

/** Every log line of a request carries its id; no line carries the API key. */
describe("request logging", () => {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  let api: ApiHarness;
  beforeAll(async () => {
    const logger = pino(
      { level: "info" },
      {
        write(line: string) {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    );
    api = await startApiHarness({ overrides: { logger } });
  });
  afterAll(async () => {
    await api.stop();
  });

  it("binds the request id to the completion line and to lines handlers write, and never logs the key", async () => {
    const merchant = await api.merchant();
    const ok = await api.call(merchant.apiKey, "/v1/customers", { headers: { "X-Request-Id": "trace-ok-1" } });
    expect(ok.status).toBe(200);
    const rejected = await api.call("sk_sandbox_unknown", "/v1/customers", {
      headers: { "X-Request-Id": "trace-rejected-1" },
    });
    expect(rejected.status).toBe(401);
    // The completion line is written on 'finish', just after the client has the answer.
    await new Promise((resolve) => setTimeout(resolve, 50));

    const okLines = lines.filter((l) => l.reqId === "trace-ok-1");
    expect(okLines).toEqual([
      expect.objectContaining({
        msg: "request completed",
        req: { method: "GET", url: "/v1/customers" },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    const rejectedLines = lines.filter((l) => l.reqId === "trace-rejected-1");
    expect(rejectedLines.map((l) => l.msg)).toEqual(["request rejected", "request completed"]);
    expect(rejectedLines[0]).toMatchObject({ code: "unauthorized", status: 401 });
    expect(raw.join("")).not.toContain(merchant.apiKey);
  });

  it("gives a request without a usable X-Request-Id a fresh UUID, in the header and the log", async () => {
    const res = await api.call(undefined, "/health", { headers: { "X-Request-Id": "bad id with spaces" } });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.some((l) => l.reqId === id && l.msg === "request completed")).toBe(true);
  });
});
