import { hostname } from "node:os";
import { type ChainAdapter, ChainMisconfiguredError, ServiceUnavailableError } from "@mp/core";
import {
  createIndexerMetrics,
  getIndexerStates,
  type Indexer,
  type IndexerMetrics,
  registerLeaderMetrics,
} from "@mp/indexer";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness } from "../support/api-harness.ts";
import { useStarted } from "../support/use-started.ts";
import { addWallet, catchUp, createMerchant, depositsOf, newIndexer, waitFor } from "./indexer-fixtures.ts";
import { startEvmChain } from "./test-chains.ts";

/**
 * A chain whose configuration is wrong (another network, refused credentials) stops with one clear
 * error, shown in GET /v1/chains and /metrics, instead of being retried forever; a transient
 * failure keeps its backoff. Real anvil and adapter; the wrapper only adds the failing answers.
 */
describe("indexer on a misconfigured chain", () => {
  const chain = useStarted("the test chain", startEvmChain, (started) => started.close());
  const api: ApiHarness = useStarted(
    "the API harness",
    () =>
      startApiHarness({ overrides: { chains: { BASE: chain.config }, indexerStates: () => getIndexerStates(api.db) } }),
    (started) => started.stop(),
  );
  let metrics: IndexerMetrics;
  const running: Indexer[] = [];

  beforeAll(() => {
    metrics = createIndexerMetrics(api.deps.metrics);
    registerLeaderMetrics(api.deps.metrics, api.deps.indexerStates);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((indexer) => indexer.stop()));
  });

  /** The real adapter; `fail` decides, per call, what to throw instead of answering. */
  function failingAdapter(fail: { verify?: () => Error | undefined; head?: () => Error | undefined }): ChainAdapter {
    const inner = chain.adapter();
    return {
      chain: inner.chain,
      async verifyNetwork() {
        const error = fail.verify?.();
        if (error) throw error;
      },
      async head() {
        const error = fail.head?.();
        if (error) throw error;
        return inner.head();
      },
      headers: (range) => inner.headers(range),
      scan: (range, watch) => inner.scan(range, watch),
    };
  }

  function indexerWith(adapter: ChainAdapter): Indexer {
    const indexer = newIndexer(api.db, chain, { adapter, metrics });
    running.push(indexer);
    return indexer;
  }

  const gauge = async () => (await metrics.misconfigured.get()).values.find((v) => v.labels.chain === "BASE")?.value;
  const tickErrors = async () =>
    (await metrics.tickErrors.get()).values.find((v) => v.labels.chain === "BASE")?.value ?? 0;
  const baseOnChains = async () => {
    const res = await api.call(undefined, "/v1/chains");
    expect(res.status).toBe(200);
    return res.body.data.items.find((c: { chain: string }) => c.chain === "BASE");
  };

  it("stops at start when the node serves another network: one error, in GET /v1/chains and /metrics", async () => {
    let verifications = 0;
    const wrongNetwork = "BASE: the node at the rpcUrl serves chain id 1, not 8453";
    const indexer = indexerWith(
      failingAdapter({
        verify: () => {
          verifications++;
          return new ChainMisconfiguredError(wrongNetwork);
        },
      }),
    );
    const errorsBefore = await tickErrors();
    // The loop ends by itself: nothing to retry.
    await indexer.start();
    expect(verifications).toBe(1);
    expect(await tickErrors()).toBe(errorsBefore);

    const [state] = (await getIndexerStates(api.db)).filter((s) => s.chain === "BASE");
    expect(state).toMatchObject({ stoppedError: wrongNetwork, indexedHeight: null });
    // Stopped, it leads nothing: the chain's lease was handed back.
    expect((await baseOnChains()).indexer).toMatchObject({
      status: "misconfigured",
      error: wrongNetwork,
      leader: null,
    });
    expect(await gauge()).toBe(1);
    const scrape = await api.call(undefined, "/metrics");
    expect(scrape.text).toContain('indexer_misconfigured{chain="BASE"} 1');

    // Fixed configuration, new start: the node is verified, the error cleared, indexing runs.
    const fixed = indexerWith(failingAdapter({}));
    await catchUp(fixed);
    expect((await baseOnChains()).indexer).toMatchObject({ status: "running", error: null, lag_blocks: 0 });
    expect(await gauge()).toBe(0);
    // Who indexes it: this process, since its lease began, at a later epoch than the stopped one's.
    const { leader } = (await baseOnChains()).indexer;
    expect(leader).toEqual({ host: hostname(), pid: process.pid, since: expect.any(String), epoch: 2 });
    expect(Date.parse(leader.since)).toBeLessThanOrEqual(Date.now() + 1_000);
    const scraped = (await api.call(undefined, "/metrics")).text;
    expect(scraped).toContain(`indexer_leader{chain="BASE",host="${hostname()}",pid="${process.pid}"} 1`);
    expect(scraped).toMatch(/indexer_leader_since_seconds\{chain="BASE"\} \d+/);
  });

  it("stops on a configuration error met later (credentials revoked), at any call", async () => {
    const merchant = await createMerchant(api.db);
    const address = chain.address();
    await addWallet(api.db, merchant, "BASE", address);
    let revoked = false;
    const refused = "BASE: the node refused our credentials (HTTP 401)";
    const indexer = indexerWith(
      failingAdapter({ head: () => (revoked ? new ChainMisconfiguredError(refused) : undefined) }),
    );
    const loop = indexer.start();
    const txHash = await chain.pay(address, chain.amount(2));
    await waitFor("deposit seen", async () => (await depositsOf(api.db, merchant.merchantId))[0]);
    expect((await baseOnChains()).indexer).toMatchObject({ status: "running", error: null });

    revoked = true;
    await loop;
    expect((await baseOnChains()).indexer).toMatchObject({ status: "misconfigured", error: refused });
    expect(await gauge()).toBe(1);
    expect((await depositsOf(api.db, merchant.merchantId)).map((d) => d.tx_hash)).toEqual([txHash]);
  });

  it("keeps retrying a transient failure with backoff, then verifies and indexes", async () => {
    let outages = 3;
    const indexer = indexerWith(
      failingAdapter({
        verify: () => (outages-- > 0 ? new ServiceUnavailableError("connect ECONNREFUSED 127.0.0.1") : undefined),
      }),
    );
    const errorsBefore = await tickErrors();
    const loop = indexer.start();
    await waitFor("verified after the outage", async () => {
      const [state] = (await getIndexerStates(api.db)).filter((s) => s.chain === "BASE");
      return state?.stoppedError === null && state.lag === 0 && outages < 0;
    });
    expect(await tickErrors()).toBe(errorsBefore + 3);
    expect((await baseOnChains()).indexer).toMatchObject({ status: "running", error: null });
    expect(await gauge()).toBe(0);
    await indexer.stop();
    await loop;
  });
});
