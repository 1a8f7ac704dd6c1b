export {
  disableLiquidationAddress,
  findLiquidationAddress,
  insertLiquidationAddress,
  LIQUIDATION_ADDRESS_COLUMNS,
  type LiquidationAddressResource,
  type LiquidationAddressRow,
  type NewLiquidationAddress,
  toLiquidationAddressResource,
} from "./address-store.ts";
export { drainProblems } from "./check-drains.ts";
export { DEFAULT_MAX_DRAIN_ATTEMPTS } from "./drain-failures.ts";
export { registerDrainLedgerCheck } from "./drain-ledger-check.ts";
export { registerLiquidationMetrics } from "./drain-metrics.ts";
export {
  DEFAULT_DRAIN_CONCURRENCY,
  type DrainDeps,
  type DrainPass,
  type DrainSettings,
  drainOnce,
  startDrainer,
} from "./drain-pass.ts";
export { priceDrain } from "./drain-pricing.ts";
export { DRAIN_SELECT, type DrainResource, readDrain, readDrains, toDrainResource } from "./drain-resource.ts";
export type { DrainReturnDeps } from "./drain-returns.ts";
export {
  type FailingDrain,
  findLiquidationAddressForOperator,
  listFailingDrainsForOperator,
  listLiquidationAddressesForOperator,
  type OperatorLiquidationAddress,
} from "./operator-reads.ts";
export {
  DRAIN_FAILURE_REASONS,
  DRAIN_STATES,
  type DrainFailureReason,
  type DrainState,
  LIQUIDATION_ADDRESS_STATUSES,
  type LiquidationAddressStatus,
  NOT_PAID_REASONS,
} from "./statuses.ts";
