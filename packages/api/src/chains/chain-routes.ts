import { CHAIN_IDS, chainFamily, DEFAULT_CONFIRMATIONS, iso, NATIVE_ASSETS } from "@mp/core";
import { z } from "zod";
import { defineRoute } from "../http/route.ts";

const chainResource = z.object({
  chain: z.enum(CHAIN_IDS),
  family: z.enum(["evm", "solana", "bitcoin", "tron"]),
  deposits_enabled: z.boolean(),
  required_confirmations: z.number().int(),
  assets: z.array(z.object({ asset: z.string(), contract_address: z.string().nullable(), decimals: z.number().int() })),
  indexer: z
    .object({
      head_height: z.number().int().nullable(),
      last_indexed_height: z.number().int().nullable(),
      lag_blocks: z.number().int().nullable(),
      updated_at: z.iso.datetime().nullable(),
      status: z
        .enum(["running", "misconfigured"])
        .describe("misconfigured: stopped on a configuration error (wrong network, refused credentials)"),
      error: z.string().nullable().describe("What to fix when misconfigured; null while running"),
      leader: z
        .object({
          host: z.string().describe("Host name of the indexer process"),
          pid: z.number().int().describe("Its process id on that host"),
          since: z.iso.datetime().describe("When it began to lead the chain"),
          epoch: z.number().int().describe("Fencing epoch of its lease: 1 + how many times the chain changed hands"),
        })
        .nullable()
        .describe("The indexer process that indexes the chain now; null while none leads it"),
    })
    .nullable(),
});

export const listChainsRoute = defineRoute({
  method: "get",
  path: "/v1/chains",
  operationId: "listChains",
  summary: "The ten supported chains with their configured capabilities and indexer progress",
  tag: "Chains",
  auth: false,
  limitPerClient: true,
  response: z.object({ items: z.array(chainResource) }),
  successStatus: 200,
  async handler({ deps }) {
    const states = new Map((await deps.indexerStates()).map((s) => [s.chain, s]));
    const items = CHAIN_IDS.map((chain) => {
      const config = deps.chains[chain];
      const native = NATIVE_ASSETS[chain];
      const state = states.get(chain);
      return {
        chain,
        family: chainFamily(chain),
        // A chain absent from CHAINS_CONFIG still has addresses, but nothing watches them.
        deposits_enabled: config !== undefined,
        required_confirmations: config?.confirmations ?? DEFAULT_CONFIRMATIONS[chain],
        assets: [
          { asset: native.asset, contract_address: null, decimals: native.decimals },
          ...(config?.tokens ?? []).map((t) => ({ asset: t.asset, contract_address: t.address, decimals: t.decimals })),
        ],
        indexer: state
          ? {
              head_height: state.headHeight,
              last_indexed_height: state.indexedHeight,
              lag_blocks: state.lag,
              updated_at: state.updatedAt ? iso(state.updatedAt) : null,
              status: state.stoppedError === null ? ("running" as const) : ("misconfigured" as const),
              error: state.stoppedError,
              leader: state.leader
                ? {
                    host: state.leader.host,
                    pid: state.leader.pid,
                    since: iso(state.leader.since),
                    epoch: state.leader.epoch,
                  }
                : null,
            }
          : null,
      };
    });
    return { status: 200, data: { items } };
  },
});

export const chainRoutes = [listChainsRoute];
