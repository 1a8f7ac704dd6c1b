import { z } from "zod";
import { compareRates, parseRate } from "./rate-decimal.ts";
import { RateUnavailableError } from "./rate-unavailable-error.ts";

/**
 * The operator's sane range per asset (decimal strings, USD per unit), e.g.
 * `{"BTC": {"min": "1000", "max": "1000000"}}`. An answer outside it is refused, not clamped: a feed
 * stuck at its circuit-breaker floor or a fat-fingered ticker must not value a deposit.
 */
export type RateBounds = Readonly<z.infer<typeof rateBoundsSchema>>;

const boundSchema = z.string().refine((value) => parseRate(value) !== null, "not a plain decimal string");

/** The shape of a bounds file (RATES_BOUNDS_FILE); a min above its max is refused. */
export const rateBoundsSchema = z.record(
  z.string().min(1),
  z
    .strictObject({ min: boundSchema.optional(), max: boundSchema.optional() })
    .refine(
      (range) => range.min === undefined || range.max === undefined || compareRates(range.min, range.max) <= 0,
      "min is above max",
    ),
);

/** Throws RateUnavailableError(out_of_bounds) when `rate` is outside `bounds[asset]`. */
export function checkRateBounds(asset: string, rate: string, bounds: RateBounds | undefined, source: string): void {
  const range = bounds?.[asset];
  if (!range) return;
  if (range.min !== undefined && compareRates(rate, range.min) < 0) {
    throw new RateUnavailableError(
      asset,
      "out_of_bounds",
      `${source} answered ${rate}, below the minimum ${range.min}`,
    );
  }
  if (range.max !== undefined && compareRates(rate, range.max) > 0) {
    throw new RateUnavailableError(
      asset,
      "out_of_bounds",
      `${source} answered ${rate}, above the maximum ${range.max}`,
    );
  }
}
