import { expect } from "vitest";
import type { ApiHarness } from "./api-harness.ts";
import { OpenApiAnswers } from "./openapi-answers.ts";

/**
 * `api.call`, each answer checked against the service's live /openapi.json: a status or body the
 * document does not describe fails the test at the call that got it.
 */
export async function documentedCall(api: Pick<ApiHarness, "call">): Promise<ApiHarness["call"]> {
  const answers = new OpenApiAnswers((await api.call(undefined, "/openapi.json")).body);
  return async (key, path, init = {}) => {
    const res = await api.call(key, path, init);
    const method = init.method ?? "GET";
    const problem = answers.problemWith({
      method,
      path: path.split("?")[0] ?? path,
      status: res.status,
      contentType: res.headers.get("content-type") ?? undefined,
      body: res.text,
    });
    expect(problem, `${method} ${path} ${res.status} ${res.text.slice(0, 300)}`).toBeUndefined();
    return res;
  };
}
