import type { SendCheck } from "@mp/treasury/ports";
import { evmKeyScheme } from "./evm-key-scheme.ts";

/** What a EVM send must be: to a EVM address (hex of 20 bytes, EIP-55 checked when mixed case); any positive amount goes (no dust limit). */
export const evmSendCheck: SendCheck = {
  isSendDestination: (to) => evmKeyScheme.isAddress(to, "mainnet"),
  assertSendAmount: () => {},
};
