import type {
  ChainAdapter,
  ChainAsset,
  ChainConfig,
  ChainFamily,
  ChainId,
  PaymentTarget,
  SandboxFaucet,
} from "@mp/core";
import type { KeyScheme } from "@mp/custody";
import type { LeasedChainLoop } from "./chain-loop.ts";
import type { ChainSender } from "./chain-sender.ts";
import type { HoldingsReader } from "./reconcile/holdings-reader.ts";
import type { SendCheck } from "./send-check.ts";
import type { SenderFactoryOptions } from "./sender-factory-options.ts";
import type { SweeperOptions } from "./sweeps/sweep-send.ts";

/**
 * One chain family, whole: what the service builds for a configured chain of it. Each family
 * (chains/<family>) exports one record (e.g. `evmFamily`); the service's registry
 * (services/payments/src/chain-families.ts) lists them, and nothing else branches on the family:
 * adding a family is its folder and one line there.
 */
export interface ChainFamilyModule {
  readonly family: ChainFamily;
  /**
   * How the family's keys and addresses are made (curve, derivation paths, address encoding and
   * check): custody derives every family's receive, deposit and treasury keys through it.
   */
  readonly keyScheme: KeyScheme;
  /** The indexer's reader of a configured chain (blocks, transfers, node capability checks). */
  createAdapter(config: ChainConfig): ChainAdapter;
  /** The assets the treasury holds and sends there, native coin first. */
  assets(config: ChainConfig): ChainAsset[];
  /** A sandbox faucet: a local test node's, or an EVM chain's funded faucet key. */
  createFaucet(config: ChainConfig): SandboxFaucet;
  /** Whether a sandbox deployment (not the local one) gets a faucet for this chain; absent: never. */
  hasConfiguredFaucet?(config: ChainConfig): boolean;
  /** The chain's sender (signing, fees, broadcast, status), run by the send pipeline. */
  createSender(options: SenderFactoryOptions): ChainSender;
  /** The family's sweeper over its chains that have a sender (deposits gathered into the treasury). */
  createSweeper(options: SweeperOptions): LeasedChainLoop;
  /** What reconciliation reads from the chain's node: holdings and fees paid. */
  createHoldingsReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader;
  /** What a send request of the family must be (its destination, its dust limit), checked before it is queued. */
  readonly sendCheck: SendCheck;
  /** A payment request option's payment URI, the form the family's wallets read from a QR code. */
  paymentUri(target: PaymentTarget): string;
}

/** The registry's lookup: the family record of a chain. */
export type FamilyOf = (chain: ChainId) => ChainFamilyModule;
