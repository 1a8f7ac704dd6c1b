import type { SendCheck } from "@mp/treasury/ports";
import { solanaKeyScheme } from "./solana-key-scheme.ts";

/** What a Solana send must be: to a Solana address (base58 of a 32-byte key); any positive amount goes (no dust limit). */
export const solanaSendCheck: SendCheck = {
  isSendDestination: (to) => solanaKeyScheme.isAddress(to, "mainnet"),
  assertSendAmount: () => {},
};
