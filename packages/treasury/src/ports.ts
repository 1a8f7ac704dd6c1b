// What a chain family (chains/<family>) builds its treasury side on: the sender contract, the send
// pipeline's stores, the sweep steps' loop and stores, the reconciliation readers' inputs. A family
// imports these from "@mp/treasury/ports", never the package's index, and the treasury imports no family.
export * from "./attempt-hash-taken.ts";
export * from "./attempt-store.ts";
export * from "./chain-family-module.ts";
export * from "./chain-loop.ts";
export * from "./chain-sender.ts";
export * from "./fenced-tx.ts";
export * from "./reconcile/holdings-reader.ts";
export * from "./reconcile/known-output.ts";
export * from "./reconcile/mined-block.ts";
export * from "./send-check.ts";
export * from "./send-pipeline.ts";
export * from "./send-requests.ts";
export * from "./sender-factory-options.ts";
export * from "./sweeps/chain-sweep-pass.ts";
export * from "./sweeps/sweep-config.ts";
export * from "./sweeps/sweep-send.ts";
export * from "./sweeps/sweep-step.ts";
export * from "./sweeps/sweep-store.ts";
