import { ValidationError } from "@mp/core";
import type { ZodType } from "zod";

/** Parses `input` with `schema`; the first problem becomes a 400 naming the field. */
export function parseOrThrow<T>(schema: ZodType<T>, input: unknown, where: "body" | "query" | "path"): T {
  // Without options zod runs its compiled parser: a customer id's path took 0.2-0.6 us so, 5-7 us
  // with `reportInput` (on every request). The refused input is parsed again for its wording.
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : where;
  let message = issue?.message ?? "invalid";
  if (issue?.code === "unrecognized_keys") {
    return throwValidation(
      `${where}: unknown field ${issue.keys.map((k) => `'${k}'`).join(", ")}`,
      issue.keys[0] ?? where,
    );
  }
  if (issue?.code === "invalid_type" && issue.input === undefined) message = "is required";
  return throwValidation(`${field}: ${message}`, field);
}

function throwValidation(message: string, field: string): never {
  throw new ValidationError(message, field);
}
