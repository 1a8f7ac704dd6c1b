import { z } from "zod";

/** Blocks by slot, as getBlock `result` objects (or raw JSON text, to control number formatting). */
export type StubBlocks = ReadonlyMap<number, unknown>;

const requestSchema = z.object({ id: z.number(), method: z.string(), params: z.array(z.unknown()) });

/**
 * A fetch that answers getBlocks/getBlock from recorded blocks, with agave's error for a slot
 * without a block. Lets a recorded response go through the adapter's real transport and schemas.
 * `alsoListed` slots appear in getBlocks although getBlock says they were skipped (a node that
 * lacks them).
 */
export function stubSolanaRpc(blocks: StubBlocks, alsoListed: readonly number[] = []): typeof globalThis.fetch {
  return async (_input, init) => {
    const body: unknown = JSON.parse(String(init?.body));
    const requests = z.union([requestSchema, z.array(requestSchema)]).parse(body);
    const answers = (Array.isArray(requests) ? requests : [requests]).map((request) => {
      const [first, second] = request.params;
      if (request.method === "getBlocks") {
        const from = Number(first);
        const to = Number(second);
        const slots = [...blocks.keys(), ...alsoListed]
          .filter((slot) => slot >= from && slot <= to)
          .sort((a, b) => a - b);
        return `{"jsonrpc":"2.0","result":${JSON.stringify(slots)},"id":${request.id}}`;
      }
      if (request.method === "getFirstAvailableBlock") {
        // The recorded blocks are all the history this stand-in has: none is purged.
        return `{"jsonrpc":"2.0","result":0,"id":${request.id}}`;
      }
      if (request.method === "getBlock") {
        const block = blocks.get(Number(first));
        if (block === undefined) {
          return JSON.stringify({
            jsonrpc: "2.0",
            error: {
              code: -32007,
              message: `Slot ${first} was skipped, or missing due to ledger jump to recent snapshot`,
            },
            id: request.id,
          });
        }
        const result = typeof block === "string" ? block : JSON.stringify(block);
        return `{"jsonrpc":"2.0","result":${result},"id":${request.id}}`;
      }
      return JSON.stringify({ jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: request.id });
    });
    return new Response(Array.isArray(requests) ? `[${answers.join(",")}]` : (answers[0] ?? ""), {
      headers: { "content-type": "application/json" },
    });
  };
}

/** A getBlock result holding one recorded getTransaction result (the envelope hashes are placeholders). */
export function blockAround(transaction: { meta: unknown; transaction: unknown; version?: unknown }, slot: number) {
  return {
    blockHeight: null,
    blockTime: null,
    blockhash: `RecordedTransactionEnvelope${slot}`,
    parentSlot: slot - 1,
    previousBlockhash: `RecordedTransactionEnvelope${slot - 1}`,
    transactions: [
      { meta: transaction.meta, transaction: transaction.transaction, version: transaction.version ?? "legacy" },
    ],
  };
}
