import type { FundingWallets } from "@mp/transfers";
import type { WalletSlots } from "./wallet-slots.ts";
import { createWallet } from "./wallet-store.ts";

/**
 * The transfers' funding addresses as wallets of their own (purpose TRANSFER_FUNDING) at slots of
 * `slots`, made like a customer's wallet: same derivation, so the indexer watches their addresses
 * and the sweepers sweep them.
 */
export function fundingWallets(slots: WalletSlots): FundingWallets {
  return {
    async reserve(merchantId) {
      const reserved = await slots.reserve(merchantId);
      return {
        release: reserved.release,
        openWallet: (sql, wallet) =>
          createWallet(sql, {
            ...wallet,
            slot: reserved.slot,
            addresses: reserved.addresses,
            purpose: "TRANSFER_FUNDING",
          }),
      };
    },
  };
}
