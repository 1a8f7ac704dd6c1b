import { type ChainId, ChainMisconfiguredError } from "@mp/core";
import { z } from "zod";
import { sunSchema, transactionInfoListSchema } from "./api-schemas.ts";
import { MAX_BLOCKS_PER_LIMIT_NEXT } from "./constants.ts";
import type { TronHttpClient } from "./http-api-client.ts";
import { headBlockNumber, recentBlocks } from "./recent-blocks.ts";

/** Blocks per getblockbylimitnext (full mainnet blocks are large). */
const PER_CALL = 5;
/** Blocks whose receipts are read at most: on mainnet the first one settles it. */
const MAX_RECEIPT_READS = 10;
/** Successful contract calls carrying TRX, none with an internal transaction listed, before the node is judged. */
const EVIDENCE = 3;

const valueCallSchema = z.object({
  txID: z.string(),
  ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
  raw_data: z.object({
    contract: z
      .array(
        z.object({
          type: z.string(),
          parameter: z.object({ value: z.object({ call_value: sunSchema.optional() }).passthrough() }),
        }),
      )
      .optional(),
  }),
});

/** A successful TriggerSmartContract that sent TRX into a contract (which may pay it on: internal transactions). */
function isValueCall(tx: unknown): boolean {
  const parsed = valueCallSchema.safeParse(tx);
  if (!parsed.success) return false;
  const contract = parsed.data.raw_data.contract?.[0];
  return (
    contract?.type === "TriggerSmartContract" &&
    (contract.parameter.value.call_value ?? 0n) > 0n &&
    parsed.data.ret?.[0]?.contractRet === "SUCCESS"
  );
}

/**
 * The indexer sees TRX that a contract pays to a deposit address (an exchange's or a multisig's
 * withdrawal) only in the receipts' `internal_transactions`, which java-tron writes only with
 * `vm.saveInternalTx = true` (off by default; on at TronGrid). The node cannot be asked for its
 * setting, so its recent blocks are read: a receipt listing an internal transaction proves it on;
 * EVIDENCE successful contract calls carrying TRX with none listed anywhere prove it off (on
 * mainnet every block holds many); fewer (a quiet test chain) leave nothing to judge. Throws
 * ChainMisconfiguredError naming the capability `internal_transactions`.
 */
export async function verifyInternalTransactions(api: TronHttpClient, chain: ChainId): Promise<void> {
  const head = await headBlockNumber(api);
  const lowest = Math.max(1, head - MAX_BLOCKS_PER_LIMIT_NEXT + 1);
  let valueCalls = 0;
  let reads = 0;
  for (let end = head; end >= lowest && reads < MAX_RECEIPT_READS; end -= PER_CALL) {
    const start = Math.max(lowest, end - PER_CALL + 1);
    for (const block of await recentBlocks(api, start, end)) {
      const calls = (block.transactions ?? []).filter(isValueCall).length;
      if (calls === 0 || reads >= MAX_RECEIPT_READS) continue;
      reads++;
      const num = block.block_header.raw_data.number;
      const infos = await api.post("/wallet/gettransactioninfobyblocknum", { num }, transactionInfoListSchema);
      if (infos.some((info) => (info.internal_transactions?.length ?? 0) > 0)) return;
      valueCalls += calls;
      if (valueCalls >= EVIDENCE) {
        throw new ChainMisconfiguredError(
          `the Tron node at CHAINS_CONFIG.${chain}.rpcUrl lists no internal transactions (${valueCalls} successful contract calls carrying TRX up to block ${num}, none listed): TRX that contracts pay to deposit addresses (exchange and multisig withdrawals) would be missed; set vm.saveInternalTx = true (off by default in java-tron) or use another node`,
          { details: { chain, capability: "internal_transactions", block: num } },
        );
      }
    }
  }
}
