import { type ZodType, z } from "zod";

/** The pagination object of spec 2.1 around `item`. */
export function pageSchema(item: ZodType) {
  return z.object({
    items: z.array(item),
    limit: z.number().int(),
    page: z.number().int(),
    total: z.number().int(),
    total_pages: z.number().int(),
  });
}
