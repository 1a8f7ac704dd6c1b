import { setTimeout as sleep } from "node:timers/promises";
import { type AppConfig, type ChainId, decimalToUnits, unitsToDecimal, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { refuseSanctionedDestination } from "@mp/providers";
import {
  findSend,
  listOpenSends,
  listTreasuryAddresses,
  readTreasuryBalances,
  requestSend,
  type TreasurySend,
  treasuryBalanceJson,
  treasurySendJson,
} from "@mp/treasury";
import { bitcoinNetworkOf } from "../bitcoin-network.ts";
// One chain's family at a time, not chain-families.ts: a send on BASE never loads tronweb or @solana/web3.js.
import { loadChainFamily } from "../load-chain-family.ts";
import { openSanctionsScreening } from "../sanctions-screening.ts";
import { print, printList, withDatabase } from "./cli-support.ts";

/** How often `treasury send --wait` looks at the send. */
const WAIT_POLL_MS = 1_000;

type AssetDecimals = Map<string, number>;

/**
 * The assets the treasury can send on `chain`, with their decimals: CHAINS_CONFIG's when it is set;
 * in a local sandbox (whose chains and token contracts only the running service knows) the assets
 * the signer recorded balances of. Empty when the chain is not configured.
 */
async function sendableAssets(q: Queryable, config: AppConfig, chain: ChainId): Promise<AssetDecimals> {
  if (config.chains) {
    const chainConfig = config.chains[chain];
    if (!chainConfig) return new Map();
    const family = await loadChainFamily(chainConfig.chain);
    return new Map(family.assets(chainConfig).map((a) => [a.asset, a.decimals]));
  }
  if (config.environment === "production") return new Map();
  const balances = await readTreasuryBalances(q);
  return new Map(balances.filter((b) => b.chain === chain).map((b) => [b.asset, b.decimals]));
}

function sendText(send: TreasurySend, decimals: number | undefined): string {
  const amount =
    decimals === undefined ? `${send.amountRaw} (smallest units)` : unitsToDecimal(send.amountRaw, decimals, 0);
  return `${send.id} ${send.state} ${send.chain} ${amount} ${send.asset} to ${send.to}${send.reason ? `: ${send.reason}` : ""}${send.txHash ? ` tx ${send.txHash}` : ""}`;
}

export interface SendOptions {
  chain: ChainId;
  asset: string;
  to: string;
  amount: string;
  key: string;
  json?: boolean;
  wait?: boolean;
}

/** Each family's treasury send path on mainnet (a coin type may differ off mainnet, Bitcoin's does). */
async function treasuryPathsText(): Promise<string> {
  // Every family's key scheme and custody's paths: loaded only to explain an empty list.
  const [{ KEY_SCHEMES }, { treasuryPath }] = await Promise.all([
    import("../chain-families.ts"),
    import("@mp/custody"),
  ]);
  const paths = KEY_SCHEMES.map((scheme) => `${scheme.family} ${treasuryPath(scheme, "mainnet")}`);
  return `${paths.join(", ")} (on mainnet; a coin type may differ elsewhere)`;
}

/** `treasury addresses`: the treasury's addresses with their derivation paths. */
export async function printTreasuryAddresses(json: boolean | undefined): Promise<void> {
  const addresses = await withDatabase((db) => listTreasuryAddresses(db));
  if (addresses.length === 0) {
    process.stderr.write(
      `no treasury addresses recorded yet: the signer (payments serve --role signer, or all) records them at start; their paths (TREASURY_MNEMONIC): ${await treasuryPathsText()}\n`,
    );
  }
  printList(json, addresses, {
    json: (a) => a,
    text: (a) => `${a.chain} ${a.purpose} ${a.address} ${a.path}`,
    counted: "treasury addresses",
  });
}

/** `treasury balances`: what the signer last read per chain and asset. */
export async function printTreasuryBalances(json: boolean | undefined): Promise<void> {
  const balances = await withDatabase((db) => readTreasuryBalances(db));
  printList(json, balances, {
    json: treasuryBalanceJson,
    text: (b) =>
      `${b.chain} ${unitsToDecimal(b.amountRaw, b.decimals, 0)} ${b.asset} (read ${b.observedAt.toISOString()})`,
    counted: "balances",
  });
}

/** `treasury pending`: the open sends with why they wait. */
export async function printPendingSends(json: boolean | undefined): Promise<void> {
  const { sends, decimals } = await withDatabase(async (db, config) => {
    const sends = await listOpenSends(db);
    const decimals = new Map<ChainId, AssetDecimals>();
    for (const chain of new Set(sends.map((s) => s.chain))) {
      decimals.set(chain, await sendableAssets(db, config, chain));
    }
    return { sends, decimals };
  });
  const decimalsOf = (send: TreasurySend) => decimals.get(send.chain)?.get(send.asset);
  printList(json, sends, {
    json: (s) => treasurySendJson(s, decimalsOf(s)),
    text: (s) => sendText(s, decimalsOf(s)),
    counted: "open sends",
  });
}

/** `treasury send`: checks chain, asset, address and amount, then stores the send request. */
export async function sendFromTreasury(options: SendOptions): Promise<void> {
  const answer = await withDatabase(async (db, config, logger) => {
    const assets = await sendableAssets(db, config, options.chain);
    if (assets.size === 0) {
      throw new ValidationError(
        config.chains || config.environment === "production"
          ? `--chain: ${options.chain} is not configured (CHAINS_CONFIG)`
          : `--chain: no ${options.chain} assets known yet: start the service (pnpm start) so the signer records the treasury's balances`,
        "chain",
      );
    }
    const asset =
      [...assets.keys()].find((a) => a === options.asset) ??
      [...assets.keys()].find((a) => a.toUpperCase() === options.asset.toUpperCase());
    const decimals = asset === undefined ? undefined : assets.get(asset);
    if (asset === undefined || decimals === undefined) {
      throw new ValidationError(`--asset: ${options.chain} assets are ${[...assets.keys()].join(", ")}`, "asset");
    }
    const family = await loadChainFamily(options.chain);
    if (!family.keyScheme.isAddress(options.to, bitcoinNetworkOf(config, undefined))) {
      throw new ValidationError(`--to: not a ${options.chain} address`, "to");
    }
    const amountRaw = decimalToUnits(options.amount, decimals);
    if (amountRaw === null || amountRaw <= 0n) {
      throw new ValidationError(
        `--amount: must be a positive decimal with at most ${decimals} decimals for ${asset}`,
        "amount",
      );
    }
    // Never a send to a sanctioned address (docs/sanctions.md): refused before it is stored, the match kept.
    await refuseSanctionedDestination(db, await openSanctionsScreening(config, logger), {
      context: "treasury_send",
      chain: options.chain,
      address: options.to,
      merchantId: null,
      reference: options.key,
      field: "--to",
    });
    let { send, created } = await requestSend(
      db,
      {
        chain: options.chain,
        asset,
        to: options.to,
        amountRaw,
        purpose: "operator",
        idempotencyKey: options.key,
      },
      family.sendCheck,
    );
    while (options.wait && send.state !== "confirmed" && send.state !== "failed") {
      await sleep(WAIT_POLL_MS);
      send = (await findSend(db, send.id)) ?? send;
    }
    return { send, created, decimals };
  });
  print(
    options.json,
    treasurySendJson(answer.send, answer.decimals, { created: answer.created }),
    `${answer.created ? "stored" : "already stored (same key)"}: ${sendText(answer.send, answer.decimals)}`,
  );
  if (answer.send.state === "failed") process.exitCode = 1;
}
