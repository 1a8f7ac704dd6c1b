import { AmountBelowMinimumError, type ChainId, USD_DECIMALS, unitsToDecimal } from "@mp/core";
import { parseRate } from "@mp/providers";

/**
 * The smallest amount of a chain asset a transfer may move, on either side (a crypto payout, or a
 * customer's crypto deposit funding a transfer), checked when quoting (issue 27): a quote the
 * treasury could not pay out never becomes a transfer. The minimum is the larger of:
 *
 * - the chain's own floor, where it has one:
 *   - BTC on BITCOIN: 546 sat, the dust limit of a P2PKH output at Bitcoin Core's default
 *     -dustrelayfee (3 sat/vB). Nodes refuse to relay an output below its type's limit: 546 (P2PKH),
 *     540 (P2SH), 330 (P2WSH, P2TR), 294 (P2WPKH). One figure for every address type keeps the rule
 *     simple for payers and payees alike; it is above the treasury sender's own check (294 sat,
 *     packages/treasury/src/send-requests.ts), so a quoted payout is never refused there.
 *   - SOL on SOLANA: 890,880 lamports, the rent-exempt minimum of an account without data. A SOL
 *     payment that creates the payee's account with less is refused by the runtime
 *     (InsufficientFundsForRent); the minimum does not depend on whether the account exists yet,
 *     which a quote cannot know for sure.
 *   - TRX on TRON: 1 TRX. Paying an address that is not yet activated costs the sender a 1 TRX
 *     account-creation fee: a smaller payout costs the treasury more than it pays.
 * - one US cent of value at the quote's USD rate (every asset, EVM chains' included): nothing worth
 *   less than the smallest amount the service's USD books and bank rails move.
 */
const CHAIN_FLOORS: Partial<Record<ChainId, Record<string, { units: bigint; why: string }>>> = {
  BITCOIN: { BTC: { units: 546n, why: "the dust limit of a Bitcoin output" } },
  SOLANA: { SOL: { units: 890_880n, why: "the rent-exempt minimum of a Solana account" } },
  TRON: { TRX: { units: 1_000_000n, why: "the fee of activating a new Tron account" } },
};

/** One US cent in the ledger's micro-dollars. */
const CENT_USD_MICROS = 10n ** BigInt(USD_DECIMALS - 2);

export interface ChainAmount {
  asset: string;
  network: string;
  decimals: number;
  /** The rate provider's USD per whole unit; without it (a stored quote) only the chain's floor applies. */
  usdRate?: string | undefined;
}

/** The minimum of `asset` on `network` in smallest units, and why (see the module comment). */
export function minimumOf(side: ChainAmount): { units: bigint; why: string } {
  const floor = CHAIN_FLOORS[side.network as ChainId]?.[side.asset] ?? { units: 1n, why: "" };
  const rate = side.usdRate === undefined ? null : parseRate(side.usdRate);
  if (!rate || rate.units === 0n) return floor;
  // ceil(cent * 10^decimals / rate): the fewest units worth a cent.
  const numerator = CENT_USD_MICROS * 10n ** BigInt(side.decimals) * 10n ** BigInt(rate.scale);
  const denominator = rate.units * 10n ** BigInt(USD_DECIMALS);
  const cent = (numerator + denominator - 1n) / denominator;
  return cent > floor.units ? { units: cent, why: "one US cent of value" } : floor;
}

/**
 * Refuses `units` of a chain asset below its minimum: 422 amount_below_minimum naming the minimum
 * (`field`: which amount of the quote it is, source_amount or destination_amount).
 */
export function assertAboveMinimum(field: string, side: ChainAmount, units: bigint): void {
  const minimum = minimumOf(side);
  if (units >= minimum.units) return;
  const show = (raw: bigint) => `${unitsToDecimal(raw, side.decimals, 0)} ${side.asset}`;
  const value = unitsToDecimal(minimum.units, side.decimals, 0);
  throw new AmountBelowMinimumError(
    `${field}: ${show(units)} is below the minimum of ${value} ${side.asset} on ${side.network} (${minimum.why}); quote a larger amount`,
    { asset: side.asset, network: side.network, minimum: value },
  );
}
