import type { ChainConfigInput } from "@mp/core";
import {
  type AnvilNode,
  deployTestToken,
  type StartAnvilOptions,
  startAnvil,
  type TestToken,
} from "@mp/test-nodes/evm";
import { stopIfThrows } from "./stop-if-throws.ts";

/** anvil with a test USD Coin (6 decimals) deployed: the EVM chain most tests pay on. */
export interface AnvilWithUsdc {
  node: AnvilNode;
  usdc: TestToken;
  /**
   * BASE on this anvil as CHAINS_CONFIG (and resolveChainConfig) takes it: network "regtest" (any
   * chain id is accepted), the USDC listed; `more` over that.
   */
  baseChain(more?: Partial<ChainConfigInput>): ChainConfigInput;
}

export async function startAnvilWithUsdc(options: StartAnvilOptions = {}): Promise<AnvilWithUsdc> {
  return stopIfThrows(await startAnvil(options), async (node) => {
    const usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    return {
      node,
      usdc,
      baseChain: (more = {}) => ({
        rpcUrl: node.url,
        network: "regtest",
        tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
        ...more,
      }),
    };
  });
}
