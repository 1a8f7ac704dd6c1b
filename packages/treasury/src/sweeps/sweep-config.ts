import { ConfigError, decimalToUnits } from "@mp/core";
import { z } from "zod";

/**
 * When deposits are swept: a deposit address is swept for an asset once its confirmed, not yet swept
 * deposits reach the asset's threshold (whole units), checked every `intervalMs`. Thresholds keep a
 * sweep's gas (and its top-up's) a small share of what it moves.
 */
export interface SweepConfig {
  /** Per asset symbol (USDC, ETH ...), whole units as a decimal string; unlisted assets use the defaults. */
  thresholds: Readonly<Record<string, string>>;
  /** For assets not listed: tokens, and the chain's native coin. */
  defaults: { token: string; native: string };
  intervalMs: number;
}

/** Sandbox-sane: small enough that a test deposit is swept, large enough to be worth its gas on a real chain. */
export const DEFAULT_SWEEP_CONFIG: SweepConfig = {
  thresholds: {},
  defaults: { token: "10", native: "0.01" },
  intervalMs: 60_000,
};

/** An asset's threshold in smallest units: its own (SWEEP_THRESHOLDS), else the default for tokens or the native coin. */
export function sweepThreshold(
  config: SweepConfig,
  asset: { asset: string; decimals: number },
  native: boolean,
): bigint {
  const whole = config.thresholds[asset.asset] ?? (native ? config.defaults.native : config.defaults.token);
  return decimalToUnits(whole, asset.decimals) ?? 0n;
}

const DECIMAL = /^\d+(\.\d+)?$/;
const thresholdsSchema = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((pair) => pair.trim())
      .filter((pair) => pair.length > 0),
  )
  .pipe(z.array(z.string().regex(/^[A-Za-z0-9]+=\d+(\.\d+)?$/, "each entry is ASSET=amount, e.g. USDC=100")));

/** The sandbox sweeps sooner, so a test deposit is seen swept within seconds. */
const SANDBOX_INTERVAL_MS = 10_000;

/**
 * SWEEP_THRESHOLDS ("USDC=100,ETH=0.05": per asset, whole units) and SWEEP_INTERVAL_SECONDS (default
 * 60 in production, 10 in the sandbox), read by the signer at start; a malformed value stops the start.
 */
export function sweepConfigFromEnv(env: NodeJS.ProcessEnv, environment: "sandbox" | "production"): SweepConfig {
  const thresholds: Record<string, string> = {};
  const raw = env.SWEEP_THRESHOLDS;
  if (raw !== undefined && raw !== "") {
    const parsed = thresholdsSchema.safeParse(raw);
    if (!parsed.success) throw new ConfigError("SWEEP_THRESHOLDS", parsed.error.issues[0]?.message ?? "invalid");
    for (const pair of parsed.data) {
      const [asset = "", amount = ""] = pair.split("=");
      if (!DECIMAL.test(amount)) throw new ConfigError("SWEEP_THRESHOLDS", `${pair}: not an amount`);
      thresholds[asset] = amount;
    }
  }
  let intervalMs = environment === "production" ? DEFAULT_SWEEP_CONFIG.intervalMs : SANDBOX_INTERVAL_MS;
  const interval = env.SWEEP_INTERVAL_SECONDS;
  if (interval !== undefined && interval !== "") {
    const seconds = Number(interval);
    if (!Number.isInteger(seconds) || seconds < 1) {
      throw new ConfigError("SWEEP_INTERVAL_SECONDS", "must be a whole number of seconds, at least 1");
    }
    intervalMs = seconds * 1_000;
  }
  return { ...DEFAULT_SWEEP_CONFIG, thresholds, intervalMs };
}
