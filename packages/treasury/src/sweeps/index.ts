export { DEFAULT_SWEEP_CONFIG, type SweepConfig, sweepConfigFromEnv } from "./sweep-config.ts";
