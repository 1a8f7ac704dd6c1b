import type {
  ChainId,
  ChainsConfig,
  IndexerState,
  Logger,
  PaymentRequestSettings,
  PaymentUriOf,
  SandboxFaucet,
  TransferSettings,
} from "@mp/core";
import type { BitcoinNetwork } from "@mp/custody";
import type { Database } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import type { JobQueue } from "@mp/jobs";
import type { AddressScreening, BankingProvider, KycProvider, RateProvider } from "@mp/providers";
import type { ResolveHost } from "@mp/webhooks";
import type { Registry } from "prom-client";
import type { VerifiedKeysOptions } from "./auth/verified-keys.ts";
import type { AddressDeriver } from "./wallets/address-deriver.ts";
import type { WalletSlots } from "./wallets/wallet-slots.ts";

/**
 * Everything the HTTP app and the background jobs need, built once at start by the service and
 * passed in (tests build their own).
 */
export interface AppDeps {
  db: Database;
  logger: Logger;
  environment: "sandbox" | "production";
  chains: ChainsConfig;
  jobs: JobQueue;
  rates: RateProvider;
  /** Derives receive addresses (packages/custody); holds no spendable secret for secp256k1 chains. */
  addresses: AddressDeriver;
  kyc: KycProvider;
  /** Fiat banking provider: USD virtual accounts (sandbox by default). */
  banking: BankingProvider;
  /** Sanctions screening of payout destinations (docs/sanctions.md); a listed one is 422 destination_sanctioned. */
  sanctions: AddressScreening;
  /** AES-256-GCM keys sealing KYC payloads and bank details at rest (packages/encryption). */
  encryption: EncryptionKeyring;
  /** Prometheus registry that /metrics renders. */
  metrics: Registry;
  /**
   * The bearer token /metrics requires. Unset: /metrics is open in a sandbox and closed (401) in
   * production, which also refuses to start the API without it.
   */
  metricsToken?: string | undefined;
  /** Local sandbox faucets by chain (empty in production). */
  faucets: Partial<Record<ChainId, SandboxFaucet>>;
  rateLimitPerMinute: number;
  /** Pricing (spread, default fee schedule) and time limits of quotes and transfers (TRANSFER_*). */
  transfers: TransferSettings;
  /** Rate lock and default expiry of payment requests, and PUBLIC_URL for their hosted pages. */
  paymentRequests: PaymentRequestSettings;
  /** A payment request option's payment URI, written by its chain's family (the service's registry). */
  paymentUri: PaymentUriOf;
  /**
   * Whether an address is one of the chain's a transfer can be sent to (`network`: the Bitcoin
   * network), checked by its chain's family (the service's registry).
   */
  isChainAddress: (chain: ChainId, address: string, network: BitcoinNetwork) => boolean;
  /** Per-chain indexer progress for /v1/chains (absent where no indexer has run). */
  indexerStates: () => Promise<IndexerState[]>;
  /** Largest accepted JSON body. */
  bodyLimit?: string;
  /**
   * Per-app state: the wallet index blocks this app reserved and the addresses it derived ahead
   * (`new WalletSlots(db, addresses)`). Held here, never in a module, so each app has its own.
   */
  walletSlots: WalletSlots;
  /**
   * How long a verified API key is trusted without a lookup (default 5 s, `ttlMs: 0` looks every key
   * up), and the clock it is measured on (tests move their own): auth/verified-keys.ts.
   */
  apiKeyCache?: VerifiedKeysOptions;
  /** DNS for webhook URL checks (default: the system resolver); tests give names fixed answers. */
  resolveWebhookHost?: ResolveHost;
}

export type { AddressDeriver, DerivedAddress } from "./wallets/address-deriver.ts";
export type { IndexerState };
