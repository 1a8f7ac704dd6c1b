import type { AddressDeriver, DerivedAddress } from "./address-deriver.ts";
import type { WalletSlot } from "./wallet-index-allocator.ts";

/** Slots derived ahead and not yet taken; a few per merchant at most, the oldest dropped first. */
const CAPACITY = 256;

/**
 * Derives the addresses of a merchant's next wallet slot after a request is answered, in the idle
 * time between requests, so the next creation finds them ready (deriving ten addresses costs about a
 * millisecond of CPU, and reading a slot's stored public material a database round trip). Derivation
 * is a pure function of the slot: a slot derived ahead and never taken only cost that work. A lookup
 * ahead that fails (a pool not refilled yet) is forgotten: the creation asks again.
 */
export class AddressesAhead {
  private readonly ready = new Map<string, Promise<DerivedAddress[]>>();

  constructor(private readonly deriver: AddressDeriver) {}

  async addressesFor(slot: WalletSlot): Promise<DerivedAddress[]> {
    const key = `${slot.account}:${slot.index}`;
    const derived = this.ready.get(key);
    if (derived) {
      this.ready.delete(key);
      const addresses = await derived.catch(() => undefined);
      if (addresses) return addresses;
    }
    return this.deriver.deriveWalletAddresses(slot.account, slot.index);
  }

  /** Derives `slot` on a later turn of the event loop, unless it is ready already. */
  deriveLater(slot: WalletSlot | undefined): void {
    if (!slot) return;
    const key = `${slot.account}:${slot.index}`;
    if (this.ready.has(key)) return;
    setImmediate(() => {
      if (this.ready.has(key)) return;
      const derived = Promise.resolve().then(() => this.deriver.deriveWalletAddresses(slot.account, slot.index));
      // Handled here so that a failure nobody awaits (the slot never taken) is no unhandled rejection.
      derived.catch(() => undefined);
      this.ready.set(key, derived);
      if (this.ready.size > CAPACITY) {
        const oldest = this.ready.keys().next().value;
        if (oldest !== undefined) this.ready.delete(oldest);
      }
    });
  }
}
