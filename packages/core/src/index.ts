export * from "./chain-adapter.ts";
export * from "./chain-assets.ts";
export * from "./chains.ts";
export * from "./chains-config.ts";
export * from "./config.ts";
export * from "./errors.ts";
export * from "./logger.ts";
export * from "./money.ts";
