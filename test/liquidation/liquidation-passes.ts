import { drainOnce } from "@mp/liquidation";
import { createSandboxBankingProvider } from "@mp/providers";
import type { ApiHarness } from "../support/api-harness.ts";

/** One pass of the liquidation drainer over the API's database, priced with its transfer settings. */
export function drainPass(api: ApiHarness): ReturnType<typeof drainOnce> {
  const { transfers } = api.deps;
  return drainOnce({
    db: api.db,
    keyring: api.deps.encryption,
    rates: api.deps.rates,
    settings: {
      spreadBps: transfers.spreadBps,
      feeFixedUsdMicros: transfers.feeFixedUsdMicros,
      feeBps: transfers.feeBps,
    },
  });
}

/**
 * The transfer executor's bank: the sandbox bank, whose payouts complete `payoutDelayMs` after they
 * start on the clock `now` (which a test moves), checked for returns on every pass.
 */
export function sandboxPayoutBank(api: ApiHarness, payoutDelayMs: number, now: () => Date) {
  return {
    banking: createSandboxBankingProvider({ payoutDelayMs, now }),
    keyring: api.deps.encryption,
    returnCheckSeconds: 0,
  };
}

/** The amounts (smallest units, largest first) of the completed payouts of the drains of liquidation address `addressId`. */
export async function completedPayouts(api: ApiHarness, addressId: string): Promise<string[]> {
  const { rows } = await api.db.query<{ amount: string }>(
    `SELECT p.amount::text AS amount FROM transfer_payouts p JOIN liquidation_drains ld ON ld.transfer_id = p.transfer_id
      WHERE ld.liquidation_address_id = $1 AND p.status = 'COMPLETED' ORDER BY p.amount DESC`,
    [addressId],
  );
  return rows.map((r) => r.amount);
}
