import type { Database } from "@mp/db";
import type { Reservation } from "../http/reservation.ts";
import type { AddressDeriver, DerivedAddress } from "./address-deriver.ts";
import { AddressesAhead } from "./addresses-ahead.ts";
import { WalletIndexAllocator, type WalletSlot } from "./wallet-index-allocator.ts";

/** A wallet slot held for one creation, with its addresses; released when the creation did not use it. */
export interface ReservedWalletSlot extends Reservation {
  slot: WalletSlot;
  addresses: DerivedAddress[];
}

/**
 * The slots (merchant account, wallet index) and their receive addresses one app hands out: its
 * index blocks and the addresses derived ahead. Per-app state, made once with the app's dependencies
 * (AppDeps.walletSlots), so two apps in one process (tests) never share blocks by accident.
 */
export class WalletSlots {
  private readonly indexes: WalletIndexAllocator;
  private readonly ahead: AddressesAhead;

  constructor(db: Database, deriver: AddressDeriver) {
    this.indexes = new WalletIndexAllocator(db);
    this.ahead = new AddressesAhead(deriver);
  }

  /**
   * The merchant's next slot and its addresses, settled before the creation's transaction opens (no
   * lock and no derivation inside it); the slot after it is derived in the idle time that follows.
   */
  async reserve(merchantId: string): Promise<ReservedWalletSlot> {
    const slot = await this.indexes.take(merchantId);
    let addresses: DerivedAddress[];
    try {
      addresses = await this.ahead.addressesFor(slot);
    } catch (error) {
      // No addresses for it yet (a pool ran dry: 503, retryable): the slot is unused, hand it out again.
      this.indexes.giveBack(merchantId, slot);
      throw error;
    }
    this.ahead.deriveLater(this.indexes.peek(merchantId));
    return { slot, addresses, release: () => this.indexes.giveBack(merchantId, slot) };
  }
}
