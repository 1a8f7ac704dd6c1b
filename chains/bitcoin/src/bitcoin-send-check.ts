import { P2WPKH_DUST } from "@mp/bitcoin-protocol";
import { ValidationError } from "@mp/core";
import type { BitcoinNetwork } from "@mp/custody";
import type { SendCheck } from "@mp/treasury/ports";
import { bitcoinKeyScheme } from "./bitcoin-key-scheme.ts";

const BITCOIN_NETWORKS: readonly BitcoinNetwork[] = ["mainnet", "testnet", "regtest"];

/**
 * What a Bitcoin send must be: to a standard address of any network (the CLI, which knows the
 * deployment's network, checks that too), and at least the dust limit, since no node relays a smaller output.
 */
export const bitcoinSendCheck: SendCheck = {
  isSendDestination: (to) => BITCOIN_NETWORKS.some((network) => bitcoinKeyScheme.isAddress(to, network)),
  assertSendAmount: (_asset, amountRaw) => {
    if (amountRaw < P2WPKH_DUST) {
      throw new ValidationError(
        `${amountRaw} sat is below the dust limit (${P2WPKH_DUST}): no node relays such an output`,
        "amount",
      );
    }
  },
};
