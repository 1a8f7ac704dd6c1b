import { randomUUID } from "node:crypto";
import {
  type ChainId,
  ConflictError,
  decimalToUnits,
  ForbiddenError,
  isEvmChain,
  NotFoundError,
  normalizeAddress,
  ValidationError,
} from "@mp/core";
import { defineGetRoute } from "../http/read-routes.ts";
import type { AnyRoute } from "../http/route.ts";
import { defineRoute } from "../http/route.ts";
import { sandboxDepositBody, sandboxDepositIdParams, sandboxDepositResource } from "./sandbox-deposit-schemas.ts";
import { findFaucetSend, queueFaucetSend } from "./sandbox-faucet-outbox.ts";

interface DestinationMatch {
  id: string;
  wallet_id: string;
  chain: ChainId;
  address: string;
}

function sandboxOnly(merchant: { environment: string }, deps: { environment: string }): void {
  if (merchant.environment !== "sandbox" || deps.environment !== "sandbox") {
    throw new ForbiddenError("Simulated deposits are only available with sandbox API keys");
  }
}

/**
 * POST /v1/sandbox/deposits: queues a REAL transfer on the local sandbox chain to one of the
 * merchant's receive addresses. The send is written (an outbox row and its job) in the request's
 * transaction and made by a worker after commit (sandbox-faucet-outbox.ts), so a rolled-back request
 * sends nothing and a replay answers the same QUEUED send. The indexer then sees the transfer like any
 * deposit (PENDING, then CONFIRMED and credited).
 */
export const sandboxDepositRoute = defineRoute({
  method: "post",
  path: "/v1/sandbox/deposits",
  operationId: "simulateDeposit",
  summary:
    "Sandbox keys only: queue a real transfer on the local sandbox chain to one of your receive addresses (sent after commit)",
  tag: "Sandbox",
  auth: true,
  idempotent: true,
  body: sandboxDepositBody,
  response: sandboxDepositResource,
  successStatus: 202,
  errorStatuses: [403, 404, 409],
  async handler({ merchant, body, sql, deps }) {
    sandboxOnly(merchant, deps);
    // The address's chains: one for Solana/Bitcoin/Tron, the seven EVM chains for a 0x address.
    const { rows } = await sql.query<DestinationMatch>(
      `SELECT id, wallet_id, chain, address FROM destinations
        WHERE merchant_id = $1 AND (address_key = $2 OR address_key = lower($2))`,
      [merchant.merchantId, body.address],
    );
    const candidates = rows.filter(
      (row) => normalizeAddress(row.chain, body.address) === normalizeAddress(row.chain, row.address),
    );
    const first = candidates[0];
    if (!first) throw new NotFoundError("No wallet of yours has this address");
    const chain: ChainId = body.chain ?? (isEvmChain(first.chain) ? "BASE" : first.chain);
    const destination = candidates.find((c) => c.chain === chain);
    if (!destination) throw new ValidationError(`the address is not a ${chain} receive address`, "chain");

    const faucet = deps.faucets[chain];
    if (!faucet) {
      throw new ConflictError(`${chain} has no local sandbox chain in this deployment (CHAINS_CONFIG is set)`);
    }
    const asset = faucet.assets().find((a) => a.asset === body.asset.toUpperCase());
    if (!asset) {
      const known = faucet
        .assets()
        .map((a) => a.asset)
        .join(", ");
      throw new ValidationError(`${chain} sandbox assets are ${known}`, "asset");
    }
    const amountRaw = decimalToUnits(body.amount, asset.decimals);
    if (amountRaw === null || amountRaw <= 0n) {
      throw new ValidationError(`must be a positive amount with at most ${asset.decimals} decimals`, "amount");
    }
    const send = await queueFaucetSend(sql, deps.jobs, {
      id: randomUUID(),
      merchantId: merchant.merchantId,
      walletId: destination.wallet_id,
      destinationId: destination.id,
      chain,
      address: destination.address,
      asset: asset.asset,
      amount: body.amount,
      amountRaw,
    });
    return {
      status: 202,
      message: "Transfer queued; GET /v1/sandbox/deposits/{id} shows its tx_hash once sent",
      data: send,
    };
  },
});

export const getSandboxDepositRoute = defineGetRoute({
  path: "/v1/sandbox/deposits/{id}",
  operationId: "getSimulatedDeposit",
  summary: "Sandbox keys only: one queued transfer, with its tx_hash once sent",
  tag: "Sandbox",
  params: sandboxDepositIdParams,
  response: sandboxDepositResource,
  errorStatuses: [403],
  notFound: "Sandbox deposit",
  async find({ merchant, params, sql, deps }) {
    sandboxOnly(merchant, deps);
    return findFaucetSend(sql, merchant.merchantId, params.id);
  },
});

export const sandboxRoutes: AnyRoute[] = [sandboxDepositRoute, getSandboxDepositRoute];
