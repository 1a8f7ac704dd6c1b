import type { z } from "zod";
import { RpcAnswerError } from "./rpc-errors.ts";

/**
 * The one check of a node's answer against its zod schema: the parsed value, or a retryable
 * RpcAnswerError naming what was asked (`what`, e.g. "Solana RPC getBlock 12") and where the answer
 * went wrong. Every chain client and adapter validates through this.
 */
export function validatedAnswer<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join(".") || "(root)";
  throw new RpcAnswerError(`${what}: unexpected answer at ${where}: ${issue?.message ?? "invalid"}`, {
    cause: parsed.error,
  });
}
