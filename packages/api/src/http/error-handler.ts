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
  payload_too_large: 413,
  customer_not_verified: 422,
  insufficient_funds: 422,
  rate_limited: 429,
  service_unavailable: 503,
  config_error: 500,
  chain_misconfigured: 503,
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

/** Errors thrown by Express's own middleware (body parser) carry a `type` and a `status`. */
function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (typeof error === "object" && error !== null && "type" in error) {
    const type = (error as { type: unknown }).type;
    if (type === "entity.parse.failed") return new ValidationError("body: malformed JSON", "body");
    if (type === "entity.too.large") return new AppError("payload_too_large", "Request body is too large");
    if (type === "encoding.unsupported" || type === "charset.unsupported") {
      return new ValidationError("body: unsupported encoding", "body");
    }
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
