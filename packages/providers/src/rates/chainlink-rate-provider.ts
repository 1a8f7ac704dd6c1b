import { scrubUrl } from "@mp/rpc";
import {
  BaseError,
  createPublicClient,
  getAddress,
  HttpRequestError,
  http,
  isAddress,
  parseAbi,
  RpcRequestError,
  TimeoutError,
} from "viem";
import { z } from "zod";
import { listUsable } from "./list-usable.ts";
import { checkRateBounds, type RateBounds } from "./rate-bounds.ts";
import { formatRate } from "./rate-decimal.ts";
import type { Rate, RateProvider } from "./rate-provider.ts";
import { RateUnavailableError } from "./rate-unavailable-error.ts";
import { roundToPar, type StablecoinPar } from "./stablecoin-par.ts";

/**
 * The two functions of Chainlink's AggregatorV3Interface we call, as Chainlink declares them (the
 * test checks them against Chainlink's published ABI). `answer` is signed.
 */
export const aggregatorV3Abi = parseAbi([
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);

/**
 * One feed: `address` is the feed's proxy (the address docs.chain.link lists), not the aggregator
 * behind it; `heartbeatSeconds` how often it publishes at the least, even when the price does not
 * move; `decimals`, when given, must be what the feed's decimals() says (a swapped aggregator with
 * other decimals is refused, not misread by a factor of 10^n).
 */
export const chainlinkFeedSchema = z.strictObject({
  address: z.string().refine((value) => isAddress(value), "not an EVM address"),
  heartbeatSeconds: z.number().int().positive(),
  decimals: z.number().int().min(0).max(36).optional(),
});
export type ChainlinkFeed = z.infer<typeof chainlinkFeedSchema>;

/** Asset -> feed: the shape of a feeds file, e.g. `{"BTC": {"address": "0x…", "heartbeatSeconds": 3600}}`. */
export const chainlinkFeedsSchema = z.record(z.string().min(1), chainlinkFeedSchema);

export interface ChainlinkRateProviderOptions extends StablecoinPar {
  /** An EVM RPC of the chain the feeds are on (Ethereum mainnet for CHAINLINK_MAINNET_FEEDS). */
  rpcUrl: string;
  /** Asset -> feed, e.g. CHAINLINK_MAINNET_FEEDS. */
  feeds: Readonly<Record<string, ChainlinkFeed>>;
  bounds?: RateBounds;
  /** Lateness allowed past the heartbeat (the update transaction waits for a block); default 120. */
  graceSeconds?: number;
  /** Per RPC call; default 10 s. */
  timeoutMs?: number;
  now?: () => Date;
}

export const DEFAULT_CHAINLINK_GRACE_SECONDS = 120;

/**
 * Rates from Chainlink price feeds, read with `decimals()` and `latestRoundData()` through one RPC.
 * An answer is used only when its round is complete and current (updatedAt > 0, answeredInRound >=
 * roundId), it is positive, not newer than now (grace allowed for clock skew), not older than
 * heartbeat + grace, and inside the
 * bounds; anything else throws RateUnavailableError so that nothing is valued at it. The rate is
 * answer / 10^decimals written out exactly; it expires when the feed would be stale
 * (updatedAt + heartbeat + grace).
 */
export function createChainlinkRateProvider(options: ChainlinkRateProviderOptions): RateProvider {
  const now = options.now ?? (() => new Date());
  const graceSeconds = options.graceSeconds ?? DEFAULT_CHAINLINK_GRACE_SECONDS;
  if (!(Number.isInteger(graceSeconds) && graceSeconds >= 0))
    throw new RangeError("graceSeconds must be an integer >= 0");
  const feeds = chainlinkFeedsSchema.parse(options.feeds);
  // No retries here: a failed read throws at once and the caller's next iteration asks again.
  const client = createPublicClient({
    transport: http(options.rpcUrl, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 }),
  });

  async function read(asset: string, feed: ChainlinkFeed): Promise<Rate> {
    const address = getAddress(feed.address);
    const source = `chainlink:${address}`;
    let decimals: number;
    let round: readonly [bigint, bigint, bigint, bigint, bigint];
    try {
      [decimals, round] = await Promise.all([
        client.readContract({ address, abi: aggregatorV3Abi, functionName: "decimals" }),
        client.readContract({ address, abi: aggregatorV3Abi, functionName: "latestRoundData" }),
      ]);
    } catch (cause) {
      // The node not answering is an outage; a node answering that there is no such feed (no code,
      // a revert) is a wrong address or chain: bad_response, for the operator to fix.
      const outage = cause instanceof BaseError && cause.walk((e) => isTransportError(e)) !== null;
      // viem's error names the RPC URL, where providers put API keys, and a logged error prints its
      // causes: only its short description goes on, scrubbed of the URL, and it is not attached.
      const said = cause instanceof BaseError ? cause.shortMessage : String(cause);
      throw new RateUnavailableError(
        asset,
        outage ? "unreachable" : "bad_response",
        `reading ${source} failed: ${scrubUrl(said, options.rpcUrl)}`,
      );
    }
    if (feed.decimals !== undefined && decimals !== feed.decimals) {
      throw new RateUnavailableError(
        asset,
        "bad_response",
        `${source} has ${decimals} decimals, configured ${feed.decimals}`,
      );
    }
    const [roundId, answer, , updatedAt, answeredInRound] = round;
    if (updatedAt === 0n) {
      throw new RateUnavailableError(asset, "invalid_answer", `${source} round ${roundId} is incomplete`);
    }
    if (answeredInRound < roundId) {
      throw new RateUnavailableError(
        asset,
        "invalid_answer",
        `${source} round ${roundId} carries the answer of round ${answeredInRound}`,
      );
    }
    if (answer <= 0n) throw new RateUnavailableError(asset, "invalid_answer", `${source} answered ${answer}`);
    const nowSeconds = BigInt(Math.floor(now().getTime() / 1000));
    const grace = BigInt(graceSeconds);
    if (updatedAt > nowSeconds + grace) {
      throw new RateUnavailableError(asset, "invalid_answer", `${source} updatedAt ${updatedAt} is in the future`);
    }
    const expiresAtSeconds = updatedAt + BigInt(feed.heartbeatSeconds) + grace;
    if (nowSeconds > expiresAtSeconds) {
      throw new RateUnavailableError(
        asset,
        "stale",
        `${source} was last updated at ${new Date(Number(updatedAt) * 1000).toISOString()}, heartbeat ${feed.heartbeatSeconds} s`,
      );
    }
    const rate = formatRate(answer, decimals);
    checkRateBounds(asset, rate, options.bounds, source);
    return {
      fromCurrency: asset,
      toCurrency: "USD",
      rate: roundToPar(asset, rate, options),
      expiresAt: new Date(Number(expiresAtSeconds) * 1000),
      source,
    };
  }

  return {
    name: "chainlink",
    async listRates() {
      return listUsable(Object.entries(feeds).map(([asset, feed]) => read(asset, feed)));
    },
    async rateFor(asset) {
      const feed = feeds[asset];
      if (!feed) throw new RateUnavailableError(asset, "no_source", "no Chainlink feed is configured");
      return read(asset, feed);
    },
  };
}

function isTransportError(error: unknown): boolean {
  return error instanceof HttpRequestError || error instanceof TimeoutError || error instanceof RpcRequestError;
}
