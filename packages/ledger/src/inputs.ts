import { ValidationError } from "@mp/core";
import { z } from "zod";

/** numeric(30, 0) holds fewer than 30 digits. */
export const MAX_MICROS = 10n ** 30n;

/** Ids are compared as text in the journal (entry references), so they are kept in canonical lowercase. */
export const idSchema = z.guid().transform((id) => id.toLowerCase());
export const holdIdSchema = z.string().min(1).max(200);
export const microsSchema = z.bigint().nonnegative().lt(MAX_MICROS);
export const positiveMicrosSchema = z.bigint().positive().lt(MAX_MICROS);

/** Parses a ledger call's input, or throws a ValidationError naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") || undefined;
  throw new ValidationError(`${field ?? "input"}: ${issue?.message ?? "invalid"}`, field);
}
