import type { Queryable } from "@mp/db";
import { z } from "zod";
import type { AccountKind } from "./accounts.ts";
import { idSchema, parseInput, positiveMicrosSchema } from "./inputs.ts";
import { type EntryKind, postEntry, transferLines } from "./journal-entry.ts";

/**
 * A posting that moves one USD amount `from` one account `to` another, once per reference (the
 * entry's kind and reference make it idempotent): its input names the reference `referenceKey`
 * and the amount `amountKey`, as its callers' domain does (`bankDepositId`, `amountUsdMicros`).
 */
export function defineOneWayPosting<R extends string, A extends string>(posting: {
  kind: EntryKind;
  from: AccountKind;
  to: AccountKind;
  referenceKey: R;
  amountKey: A;
}): (
  client: Queryable,
  input: { merchantId: string } & Record<R, string> & Record<A, bigint>,
) => Promise<{ entryId: string }> {
  const schema = z.object({
    [posting.referenceKey]: idSchema,
    merchantId: idSchema,
    [posting.amountKey]: positiveMicrosSchema,
  });
  return async (client, input) => {
    const parsed = parseInput(schema, input) as Record<string, unknown>;
    const { entryId } = await postEntry(client, {
      kind: posting.kind,
      reference: parsed[posting.referenceKey] as string,
      merchantId: parsed.merchantId as string,
      lines: transferLines(posting.from, posting.to, parsed[posting.amountKey] as bigint),
    });
    return { entryId };
  };
}
