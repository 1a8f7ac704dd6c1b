import { ServiceUnavailableError, ValidationError } from "@mp/core";
import { expect } from "vitest";
import { RateUnavailableError, type RateUnavailableReason } from "../src/index.ts";

/**
 * The error `promise` rejects with, checked to be a RateUnavailableError (so a 503 the caller waits
 * out, never a 400) with `reason` when given.
 */
export async function expectRefused(
  promise: Promise<unknown>,
  reason?: RateUnavailableReason,
): Promise<RateUnavailableError> {
  const error = await promise.then(
    () => {
      throw new Error("expected the rate to be refused");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RateUnavailableError);
  expect(error).toBeInstanceOf(ServiceUnavailableError);
  expect(error).not.toBeInstanceOf(ValidationError);
  const refused = error as RateUnavailableError;
  expect(refused.code).toBe("service_unavailable");
  expect(refused.retryable).toBe(true);
  if (reason !== undefined) expect(refused.reason).toBe(reason);
  return refused;
}
