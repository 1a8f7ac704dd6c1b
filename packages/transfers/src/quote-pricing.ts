import { toUsdMicros, USD_DECIMALS, unitsToDecimal, ValidationError } from "@mp/core";
import { parseRate, type ScaledRate } from "@mp/providers";

/**
 * The arithmetic of a quote, exact: every amount is an integer of smallest units (bigint), every
 * rate a decimal string read as an integer at its own scale. Each rounding goes the service's way and
 * never leaves a fraction of a smallest unit:
 *   - the rate (destination units per source unit, spread taken) is cut down to RATE_DECIMALS digits;
 *   - the fee is rounded up (to the source's quantum: whole cents for USD);
 *   - the destination amount is rounded down (to the destination's quantum);
 *   - a source amount derived from a wanted destination amount is rounded up.
 * The amounts are computed from the rate as shown, so anyone can recompute them from the quote.
 */
export const RATE_DECIMALS = 12;

export interface PricedAsset {
  asset: string;
  decimals: number;
  /**
   * The smallest amount that moves on the asset's rail, in smallest units: 10_000 for USD held in
   * micro-dollars (a bank moves whole cents), 1 for crypto.
   */
  quantum: bigint;
  /** The rate provider's USD per whole unit ("1" for USD). */
  usdRate: string;
}

export interface FeeSchedule {
  fixedUsdMicros: bigint;
  bps: number;
}

export interface PricingInput {
  source: PricedAsset;
  destination: PricedAsset;
  /** The amount the customer named, on the side it named it. */
  amount: { side: "source" | "destination"; value: bigint };
  spreadBps: number;
  fee: FeeSchedule;
}

export interface PricedQuote {
  /** Destination units per source unit at RATE_DECIMALS digits, and its decimal string. */
  rateUnits: bigint;
  rateValue: string;
  /** What the payer pays, the fee included. */
  sourceAmount: bigint;
  feeAmount: bigint;
  destinationAmount: bigint;
  sourceUsdMicros: bigint;
  feeUsdMicros: bigint;
  /** The payout's value in USD micros (what the travel rule threshold is compared with). */
  destinationUsdMicros: bigint;
}

const BPS = 10_000n;
const RATE_SCALE = 10n ** BigInt(RATE_DECIMALS);

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
const floorTo = (amount: bigint, quantum: bigint): bigint => (amount / quantum) * quantum;
const ceilTo = (amount: bigint, quantum: bigint): bigint => ceilDiv(amount, quantum) * quantum;

function price(asset: PricedAsset): ScaledRate {
  const parsed = parseRate(asset.usdRate);
  if (!parsed || parsed.units === 0n) throw new RangeError(`unusable USD rate ${asset.usdRate} for ${asset.asset}`);
  return parsed;
}

/** floor((pS / pD) * (1 - spread) * 10^RATE_DECIMALS): destination whole units per source whole unit. */
function rateUnitsOf(source: PricedAsset, destination: PricedAsset, spreadBps: number): bigint {
  const [s, d] = [price(source), price(destination)];
  return (s.units * pow10(d.scale) * (BPS - BigInt(spreadBps)) * RATE_SCALE) / (d.units * pow10(s.scale) * BPS);
}

/** The fee's fixed USD part in source units: micros * 10^decimals / (rate * 10^6), rounded up. */
function fixedFeeOf(input: PricingInput): bigint {
  const s = price(input.source);
  return ceilDiv(
    input.fee.fixedUsdMicros * pow10(input.source.decimals) * pow10(s.scale),
    s.units * pow10(USD_DECIMALS),
  );
}

function feeOf(input: PricingInput, sourceAmount: bigint): bigint {
  const variable = ceilDiv(sourceAmount * BigInt(input.fee.bps), BPS);
  return ceilTo(fixedFeeOf(input) + variable, input.source.quantum);
}

function destinationOf(input: PricingInput, net: bigint, rateUnits: bigint): bigint {
  const exact = (net * rateUnits * pow10(input.destination.decimals)) / (pow10(input.source.decimals) * RATE_SCALE);
  return floorTo(exact, input.destination.quantum);
}

/** The quote's amounts, or a ValidationError naming `amount` when they cannot make a transfer. */
export function priceQuote(input: PricingInput): PricedQuote {
  const rateUnits = rateUnitsOf(input.source, input.destination, input.spreadBps);
  if (rateUnits === 0n)
    throw new ValidationError("amount: the rate between these assets is too small to quote", "amount");
  const { side, value } = input.amount;
  const quantum = side === "source" ? input.source.quantum : input.destination.quantum;
  if (value <= 0n || value % quantum !== 0n) {
    throw new ValidationError(`amount: must be positive and a whole number of ${quantum} smallest units`, "amount");
  }
  let sourceAmount: bigint;
  let destinationAmount: bigint;
  if (side === "source") {
    sourceAmount = value;
    destinationAmount = destinationOf(input, sourceAmount - feeOf(input, sourceAmount), rateUnits);
  } else {
    destinationAmount = value;
    const net = ceilDiv(
      destinationAmount * pow10(input.source.decimals) * RATE_SCALE,
      rateUnits * pow10(input.destination.decimals),
    );
    const fixed = fixedFeeOf(input);
    // A first guess from the fee's formula, then up one quantum at a time: amount - fee(amount) grows
    // with the amount, so the first that covers `net` is the smallest.
    sourceAmount = ceilTo(ceilDiv((net + fixed) * BPS, BPS - BigInt(input.fee.bps)), input.source.quantum);
    while (sourceAmount - feeOf(input, sourceAmount) < net) sourceAmount += input.source.quantum;
  }
  const feeAmount = feeOf(input, sourceAmount);
  if (feeAmount >= sourceAmount || destinationAmount <= 0n) {
    throw new ValidationError("amount: too small to cover the fee", "amount");
  }
  return {
    rateUnits,
    rateValue: unitsToDecimal(rateUnits, RATE_DECIMALS, 0),
    sourceAmount,
    feeAmount,
    destinationAmount,
    sourceUsdMicros: toUsdMicros(sourceAmount, input.source.decimals, input.source.usdRate),
    feeUsdMicros: toUsdMicros(feeAmount, input.source.decimals, input.source.usdRate),
    destinationUsdMicros: toUsdMicros(destinationAmount, input.destination.decimals, input.destination.usdRate),
  };
}
