import type { ChainId } from "./chains.ts";
import type { ChainConfig } from "./chains-config.ts";

/** What a payer's wallet needs to pay one option of a payment request: where, how much, of which asset on which chain. */
export interface PaymentTarget {
  chain: ChainId;
  /** The chain's configured network: an EVM URI names the chain id of that network. */
  network: ChainConfig["network"];
  address: string;
  /** The token's contract (EVM, Tron) or mint (Solana); null for the chain's native coin. */
  contractAddress: string | null;
  decimals: number;
  amountRaw: bigint;
}

/**
 * The option's payment URI, the form its chain's wallets read from a QR code: each family writes its
 * own (chains/<family>, the family record's `paymentUri`); the service hands this lookup to the
 * payment requests' presentation. Amounts in whole units are plain decimals, never rounded.
 */
export type PaymentUriOf = (target: PaymentTarget) => string;
