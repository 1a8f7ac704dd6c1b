/** Below this a P2WPKH output is dust (Core's default -dustrelayfee): no node relays it; change that small goes to the fee. */
export const P2WPKH_DUST = 294n;
