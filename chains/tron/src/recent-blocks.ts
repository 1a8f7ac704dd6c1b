import { z } from "zod";
import type { TronHttpClient } from "./http-api-client.ts";

/** java-tron leaves a protobuf default out: block 0 has no `number`. */
const blockNumberSchema = z.number().int().nonnegative().default(0);

const nowBlockSchema = z.object({ block_header: z.object({ raw_data: z.object({ number: blockNumberSchema }) }) });

/** A block as the node checks read it: its number, its transactions looked at one by one (or counted). */
const recentBlocksSchema = z.object({
  block: z
    .array(
      z.object({
        block_header: z.object({ raw_data: z.object({ number: blockNumberSchema }) }),
        transactions: z.array(z.unknown()).optional(),
      }),
    )
    .optional(),
});

export type RecentBlock = NonNullable<z.infer<typeof recentBlocksSchema>["block"]>[number];

/** The node's head block number (getnowblock). */
export async function headBlockNumber(api: TronHttpClient): Promise<number> {
  return (await api.post("/wallet/getnowblock", {}, nowBlockSchema)).block_header.raw_data.number;
}

/** Blocks `start..end` (both included) the node has, newest first (getblockbylimitnext; `{}` when none). */
export async function recentBlocks(api: TronHttpClient, start: number, end: number): Promise<RecentBlock[]> {
  const recent = await api.post(
    "/wallet/getblockbylimitnext",
    { startNum: start, endNum: end + 1 },
    recentBlocksSchema,
  );
  return (recent.block ?? []).sort((a, b) => b.block_header.raw_data.number - a.block_header.raw_data.number);
}
