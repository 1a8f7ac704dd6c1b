import type { ChainId } from "@mp/core";

export interface DerivedAddress {
  chain: ChainId;
  address: string;
  /** Matching form: EVM lowercased, other chains as is. */
  addressKey: string;
  path: string;
}

/**
 * The receive addresses of a wallet slot. In the roles without the master mnemonic this reads the
 * public material the signer derived ahead (@mp/custody createPublicCustody), so it is asynchronous
 * and may fail with a retryable 503 service_unavailable when a pool ran dry.
 */
export interface AddressDeriver {
  deriveWalletAddresses(account: number, index: number): DerivedAddress[] | Promise<DerivedAddress[]>;
}
