import { z } from "zod";

const boundedInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .transform((v) => v ?? fallback);

/** limit 1..200 (default 50), page >= 1 (default 1); anything else is a 400 naming the parameter. */
export const paginationQuery = z.object({
  limit: boundedInt(1, 200, 50),
  page: boundedInt(1, 1_000_000, 1),
});

export type Pagination = z.infer<typeof paginationQuery>;

export function offsetOf(p: Pagination): number {
  return (p.page - 1) * p.limit;
}
