import { type AnvilNode, deployForwarder, type ForwarderContracts, startAnvil } from "@mp/test-nodes/evm";
import { useStarted } from "./use-started.ts";

/** Anvil on Base's chain id with the Forwarder contracts deployed: payments made by a contract wallet. */
export function useAnvilWithForwarder(): { node: AnvilNode; contracts: ForwarderContracts } {
  const node = useStarted(
    "anvil",
    () => startAnvil({ chainId: 8453 }),
    (started) => started.stop(),
  );
  const contracts = useStarted(
    "the Forwarder contracts",
    () => deployForwarder(node),
    async () => {},
  );
  return { node, contracts };
}
