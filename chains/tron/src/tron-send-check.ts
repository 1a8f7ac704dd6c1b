import type { SendCheck } from "@mp/treasury/ports";
import { tronKeyScheme } from "./tron-key-scheme.ts";

/** What a Tron send must be: to a Tron address (base58check of 0x41 and a 20-byte account id); any positive amount goes (no dust limit). */
export const tronSendCheck: SendCheck = {
  isSendDestination: (to) => tronKeyScheme.isAddress(to, "mainnet"),
  assertSendAmount: () => {},
};
