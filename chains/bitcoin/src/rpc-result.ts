import { ServiceUnavailableError } from "@mp/core";
import type { z } from "zod";

/** Validates one RPC result; a shape the adapter does not expect is a retryable node problem. */
export function parseRpcResult<T extends z.ZodType>(schema: T, value: unknown, method: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid";
    throw new ServiceUnavailableError(`Bitcoin RPC ${method} returned an unexpected shape (${where})`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
