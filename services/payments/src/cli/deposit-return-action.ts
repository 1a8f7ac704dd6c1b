import { unitsToDecimal, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { recordSanctionsMatch, type SanctionsMatchInput } from "@mp/providers";
import { bitcoinNetworkOf } from "../bitcoin-network.ts";
import { isChainAddress } from "../chain-families.ts";
import { openSanctionsScreening } from "../sanctions-screening.ts";
import { print, withDatabase } from "./cli-support.ts";

export interface DepositReturnOptions {
  deposit: string;
  reason?: string;
  to?: string;
  json?: boolean;
}

/** The deposit's hold as it is now: a held one needs --reason to be returned. */
async function holdStatusOf(q: Queryable, depositId: string): Promise<string | null> {
  const { rows } = await q.query<{ hold_status: string | null }>("SELECT hold_status FROM deposits WHERE id = $1", [
    depositId,
  ]);
  return rows[0]?.hold_status ?? null;
}

/**
 * `deposits return`: a held deposit is refused (held -> returns_payable, `deposit.returned`) and, in
 * the same transaction, its money is handed to the treasury's send pipeline back to its payer
 * (purpose `return`, once per deposit; @mp/transfers' deposit returns). A deposit returned already
 * and still payable (a Bitcoin one without a refund address, a failed send) is sent again; one sending
 * or returned is answered as it is. A return not worth more than its fee stays payable, said here.
 */
export async function returnDeposit(options: DepositReturnOptions): Promise<void> {
  const [{ returnHeldDeposit }, { sendDepositReturn }, { transferTreasury }] = await Promise.all([
    import("@mp/ledger"),
    import("@mp/transfers"),
    import("../transfer-treasury.ts"),
  ]);
  const answer = await withDatabase(async (db, config, logger) => {
    const screening = await openSanctionsScreening(config, logger);
    const held = (await holdStatusOf(db, options.deposit)) === "HELD";
    if (held && options.reason === undefined) {
      throw new ValidationError("--reason: required to return a held deposit (recorded on the deposit)", "reason");
    }
    const refused: SanctionsMatchInput[] = [];
    try {
      return await db.tx(async (c) => {
        const decision = held
          ? await returnHeldDeposit(c, { depositId: options.deposit, reason: options.reason ?? "" })
          : null;
        const sent = await sendDepositReturn(
          c,
          { treasury: transferTreasury, screening, refused },
          {
            depositId: options.deposit,
            to: options.to,
            networkFeeUsdMicros: config.transfers.returnNetworkFeeUsdMicros,
          },
        );
        if (options.to !== undefined && !isChainAddress(sent.chain, options.to, bitcoinNetworkOf(config, undefined))) {
          throw new ValidationError(`--to: not a ${sent.chain} address`, "to");
        }
        return { entryId: decision?.entryId ?? null, sent };
      });
    } finally {
      // Recorded after the transaction: the refusal rolled it back, the match is kept.
      for (const match of refused) await db.tx((c) => recordSanctionsMatch(c, match));
    }
  });
  const { sent } = answer;
  const amount = (raw: bigint | null) => (raw === null ? null : unitsToDecimal(raw, sent.decimals, 0));
  const json = {
    deposit_id: sent.depositId,
    journal_entry_id: answer.entryId,
    state: sent.state,
    reason: sent.reason,
    chain: sent.chain,
    asset: sent.asset,
    to: sent.to,
    amount: amount(sent.amountRaw),
    network_fee: amount(sent.feeRaw),
    send_key: sent.sendKey,
  };
  const decided = answer.entryId
    ? `returned deposit ${sent.depositId}: owed to its payer (journal entry ${answer.entryId}); `
    : `deposit ${sent.depositId}: `;
  const text =
    sent.state === "payable"
      ? `${decided}return stays payable: ${sent.reason}`
      : `${decided}return ${sent.state}: ${json.amount} ${sent.asset} to ${sent.to} (network fee ${json.network_fee} ${sent.asset} taken from it; treasury send ${sent.sendKey})`;
  print(options.json, json, text);
}
