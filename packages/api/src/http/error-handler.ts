import { AppError, type ErrorCode, ValidationError } from "@mp/core";
import type { ErrorRequestHandler } from "express";
import { envelopeErrorBody, nestedErrorBody } from "./envelope.ts";

/** The one mapping from error codes to HTTP statuses. */
const STATUS: Record<ErrorCode, number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  idempotency_in_progress: 409,
  quote_expired: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  customer_not_verified: 422,
  amount_below_minimum: 422,
  destination_internal: 422,
  destination_sanctioned: 422,
  beneficiary_required: 422,
  insufficient_funds: 422,
  // The operator's treasury is short: a send waits for a top-up; never the merchant's fault.
  insufficient_treasury_funds: 503,
  rate_limited: 429,
  service_unavailable: 503,
  config_error: 500,
  chain_misconfigured: 503,
  leadership_lost: 503,
  internal_error: 500,
};

/** True for an error the client caused (a 4xx answer): nothing it started took effect. */
export function isClientError(error: unknown): error is AppError {
  return error instanceof AppError && STATUS[error.code] < 500;
}

/** Codes whose bodies always use the nested form (spec part 7). */
const NESTED_CODES = new Set<ErrorCode>(["unauthorized", "idempotency_conflict", "idempotency_in_progress"]);

export interface RenderedError {
  status: number;
  body: string;
}

/**
 * Renders any thrown value as the spec's error body. Unknown errors become a bare 500 with no
 * detail: stack traces and driver messages stay in the log.
 */
export function renderError(error: unknown, options: { nested?: boolean } = {}): RenderedError {
  const appError = toAppError(error);
  const status = STATUS[appError.code];
  const message = status >= 500 && appError.code !== "service_unavailable" ? "Internal server error" : appError.message;
  const idempotencyHeaderError = appError instanceof ValidationError && appError.field === "X-Idempotency-Key";
  const nested = options.nested || NESTED_CODES.has(appError.code) || idempotencyHeaderError;
  const body = nested ? nestedErrorBody(appError.code, message) : envelopeErrorBody(appError.code, message);
  return { status, body: JSON.stringify(body) };
}

/** The codes of the 4xx statuses Express and its parsers raise (router: 400; body-parser: 400, 403, 413, 415). */
const CODE_OF_STATUS: Partial<Record<number, ErrorCode>> = {
  400: "validation_error",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

/**
 * Errors thrown by Express's own middleware (the body parser, the router) are http-errors: a `status`
 * and, from the body parser, a `type`. A 4xx is the client's fault and keeps its status (a status
 * without a code of ours becomes 400); anything else is ours and becomes a 500.
 */
function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const { status, type, expose, message } = (typeof error === "object" && error !== null ? error : {}) as {
    status?: unknown;
    type?: unknown;
    expose?: unknown;
    message?: unknown;
  };
  if (typeof status === "number" && status >= 400 && status < 500) {
    if (type === "entity.parse.failed") return new ValidationError("body: malformed JSON", "body");
    if (type === "entity.too.large") return new AppError("payload_too_large", "Request body is too large");
    if (type === "encoding.unsupported") {
      return new AppError("unsupported_media_type", "body: unsupported Content-Encoding");
    }
    if (type === "charset.unsupported") return new AppError("unsupported_media_type", "body: unsupported charset");
    const code = CODE_OF_STATUS[status] ?? "validation_error";
    // http-errors marks a message safe to show with `expose` (every 4xx it makes).
    const text = expose === true && typeof message === "string" ? message : "Malformed request";
    return code === "validation_error" ? new ValidationError(`request: ${text}`, "request") : new AppError(code, text);
  }
  return new AppError("internal_error", "Internal server error", { cause: error });
}

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const nested = res.locals.nestedErrors === true;
  const rendered = renderError(error, { nested });
  if (rendered.status >= 500) {
    req.log?.error({ err: error }, "request failed");
  } else {
    req.log?.info({ code: (error as { code?: unknown }).code, status: rendered.status }, "request rejected");
  }
  if (res.headersSent) return;
  res.status(rendered.status).type("application/json").send(rendered.body);
};
