import { type ZodType, z } from "zod";
import type { AnyRoute } from "../http/route.ts";

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: ZodType): JsonSchema {
  // io "input": requests are described as clients send them (query values are strings).
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return rest;
}

function responseSchemaOf(schema: ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const envelopeError = {
  type: "object",
  required: ["data", "error", "message", "status"],
  properties: {
    data: { type: "object" },
    error: { type: "string", examples: ["validation_error"] },
    message: { type: "string" },
    status: { type: "string", enum: ["error"] },
  },
};
const nestedError = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string", examples: ["unauthorized"] }, message: { type: "string" } },
    },
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: "Malformed request (invalid JSON, invalid fields or query parameters)",
  401: "Missing or invalid API key",
  403: "Not allowed for this key's environment",
  404: "The resource does not exist (or belongs to another merchant)",
  409: "Conflict (duplicate, or idempotency key reused with a different body)",
  413: "Request body too large",
  415: "Unsupported body charset or Content-Encoding",
  422: "Request understood but not allowed in the resource's current state",
  429: "Rate limit exceeded for this API key",
  503: "A downstream service is temporarily unavailable",
};

function errorText(route: AnyRoute, status: number): string {
  if (status === 401 && route.path === "/metrics") return "Missing or invalid metrics token";
  if (status === 429 && !route.auth) return "Rate limit exceeded for this client address";
  return ERROR_TEXT[status] ?? "Error";
}

function parameters(route: AnyRoute): unknown[] {
  const out: unknown[] = [];
  for (const [location, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const json = schemaOf(schema);
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, prop] of Object.entries(props)) {
      out.push({ name, in: location, required: location === "path" || required.has(name), schema: prop });
    }
  }
  if (route.idempotent) {
    out.push({
      name: "X-Idempotency-Key",
      in: "header",
      required: true,
      description: "Unique key for this create; a retry with the same key and body replays the first answer",
      schema: { type: "string", maxLength: 255 },
    });
  }
  return out;
}

/** The OpenAPI 3.1 document, generated from the same route definitions and zod schemas that serve requests. */
export function buildOpenApi(routes: readonly AnyRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const successEnvelope = {
      type: "object",
      required: ["data", "error", "message", "status"],
      properties: {
        data: responseSchemaOf(route.response),
        error: { type: "string", description: "Empty placeholder on success" },
        message: { type: "string" },
        status: { type: "string", enum: ["success"] },
      },
    };
    const statuses = new Set<number>([...(route.errorStatuses ?? [])]);
    if (route.params || route.query || route.body || route.idempotent) statuses.add(400);
    // The key reused with another body, or still in progress.
    if (route.idempotent) statuses.add(409);
    if (route.auth) statuses.add(401);
    if (route.auth || route.limitPerClient) statuses.add(429);
    if (route.body) {
      statuses.add(413);
      statuses.add(415);
    }
    const responses: Record<string, unknown> = {
      [String(route.successStatus)]: {
        description: "Success",
        content: route.rawContentType
          ? { [route.rawContentType]: { schema: responseSchemaOf(route.response) } }
          : route.path === "/metrics"
            ? { "text/plain": { schema: { type: "string" } } }
            : { "application/json": { schema: successEnvelope } },
      },
    };
    for (const status of route.rawErrorStatuses ?? []) {
      responses[String(status)] = {
        description: errorText(route, status),
        content: { [route.rawContentType ?? "text/plain"]: { schema: { type: "string" } } },
      };
    }
    for (const status of [...statuses].sort()) {
      const nested = status === 401 || route.nestedErrors;
      // The idempotency key's own errors (a bad key, a key reused or in progress) use the nested form.
      const either = route.idempotent && (status === 400 || status === 409);
      responses[String(status)] = {
        description: errorText(route, status),
        content: {
          "application/json": {
            schema: nested ? nestedError : either ? { oneOf: [envelopeError, nestedError] } : envelopeError,
          },
        },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: parameters(route),
      responses,
      security: route.auth
        ? [{ ServiceApiKey: [] }, { AuthorizationApiKey: [] }]
        : route.path === "/metrics"
          ? [{ MetricsToken: [] }]
          : [],
    };
    if (route.deprecated) operation.deprecated = true;
    if (route.body) {
      operation.requestBody = { required: true, content: { "application/json": { schema: schemaOf(route.body) } } };
    }
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: operation };
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: `${name} operations` }));
  return {
    openapi: "3.1.0",
    info: {
      title: "Merchant Payments Service",
      version: "1.0.0",
      description: "Customers, KYC, multi-chain wallets and deposits, USD balance, virtual accounts.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/" }],
    tags,
    security: [],
    paths,
    components: {
      securitySchemes: {
        ServiceApiKey: { type: "apiKey", in: "header", name: "X-Service-API-Key" },
        AuthorizationApiKey: { type: "apiKey", in: "header", name: "Authorization", description: "ApiKey <key>" },
        MetricsToken: {
          type: "http",
          scheme: "bearer",
          description: "METRICS_TOKEN; unset, /metrics is open in a sandbox and closed in production",
        },
      },
    },
  };
}
