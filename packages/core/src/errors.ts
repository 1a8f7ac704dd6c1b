/**
 * Typed errors. Every error a request can meet is one of these classes; the API maps `code` to an
 * HTTP status and body in exactly one place (packages/api/src/http/error-handler.ts).
 */
export type ErrorCode =
  | "validation_error"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "idempotency_conflict"
  | "idempotency_in_progress"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "insufficient_funds"
  | "quote_expired"
  | "insufficient_treasury_funds"
  | "customer_not_verified"
  | "amount_below_minimum"
  | "destination_internal"
  | "destination_sanctioned"
  | "beneficiary_required"
  | "service_unavailable"
  | "config_error"
  | "chain_misconfigured"
  | "leadership_lost"
  | "internal_error";

export interface AppErrorOptions {
  cause?: unknown;
  /** Safe to retry the same operation later (outages, lock timeouts). */
  retryable?: boolean;
  details?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

export class ValidationError extends AppError {
  readonly field: string | undefined;
  constructor(message: string, field?: string, options: AppErrorOptions = {}) {
    super("validation_error", message, options);
    this.field = field;
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = "Missing or invalid API key") {
    super("unauthorized", message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super("forbidden", message);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string) {
    super("not_found", `${resource} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code: "conflict" | "idempotency_conflict" | "idempotency_in_progress" = "conflict") {
    super(code, message);
  }
}

export class InsufficientFundsError extends AppError {
  constructor(message = "Insufficient available balance") {
    super("insufficient_funds", message);
  }
}

/** A quote past its expires_at: its rate no longer holds; ask for a new quote. */
export class QuoteExpiredError extends AppError {
  constructor(message = "The quote has expired; create a new quote") {
    super("quote_expired", message);
  }
}

export class CustomerNotVerifiedError extends AppError {
  constructor(message: string) {
    super("customer_not_verified", message);
  }
}

/**
 * An amount the chain would refuse or that is not worth moving (a Bitcoin output below dust, SOL
 * below an account's rent-exempt minimum, less than a cent): refused when quoted, the minimum named.
 */
export class AmountBelowMinimumError extends AppError {
  constructor(message: string, details: { asset: string; network: string; minimum: string }) {
    super("amount_below_minimum", message, { details });
  }
}

/**
 * A payout to an address of ours (a deposit address of any merchant, or a treasury address): refused,
 * since paying it on chain would only move money inside our custody (issue 27).
 */
export class DestinationInternalError extends AppError {
  constructor(chain: string, kind: "deposit" | "treasury") {
    super(
      "destination_internal",
      `destination.address: this ${chain} address is ${kind === "deposit" ? "a deposit address" : "a treasury address"} of this service; pay out to an address outside it`,
    );
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string, options: AppErrorOptions = {}) {
    super("service_unavailable", message, { retryable: true, ...options });
  }
}

/** Bad or missing configuration. The message names the setting and never contains its value. */
export class ConfigError extends AppError {
  readonly setting: string;
  constructor(setting: string, message: string) {
    super("config_error", `${setting}: ${message}`);
    this.setting = setting;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * A payout, return or treasury send to an address a sanctions list names (docs/sanctions.md):
 * refused before anything is stored or sent, the list named; the match is recorded for operators.
 */
export class DestinationSanctionedError extends AppError {
  constructor(field: string, address: string, list: string) {
    super("destination_sanctioned", `${field}: ${address} is on a sanctions list (${list}); it cannot be paid`, {
      details: { address, list },
    });
  }
}

/**
 * A payout to a crypto address at or above the travel rule threshold without its beneficiary
 * (docs/transfers.md "Travel rule"): refused when quoted, nothing stored, the threshold named.
 */
export class BeneficiaryRequiredError extends AppError {
  constructor(field: string, thresholdUsd: string) {
    super(
      "beneficiary_required",
      `${field}: a payout worth ${thresholdUsd} USD or more to a crypto address needs its beneficiary (travel rule): give type and name, and for a BUSINESS also legal_name and country`,
      { details: { threshold_usd: thresholdUsd } },
    );
  }
}
