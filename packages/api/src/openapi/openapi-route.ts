import { z } from "zod";
import { type AnyRoute, defineRoute } from "../http/route.ts";
import { buildOpenApi } from "./build-openapi.ts";

/** GET /openapi.json: built once from the route list it is given (which includes itself). */
export function openApiRoute(routes: () => readonly AnyRoute[]) {
  let document: string | undefined;
  return defineRoute({
    method: "get",
    path: "/openapi.json",
    operationId: "getOpenApi",
    summary: "This API's OpenAPI 3.1 document",
    tag: "System",
    auth: false,
    rawContentType: "application/json",
    response: z.record(z.string(), z.unknown()),
    successStatus: 200,
    async handler() {
      document ??= JSON.stringify(buildOpenApi(routes()));
      return { status: 200, data: null, raw: { contentType: "application/json", body: document } };
    },
  });
}
