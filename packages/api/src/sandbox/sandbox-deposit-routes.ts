import {
  type ChainId,
  ConflictError,
  ForbiddenError,
  isEvmChain,
  NotFoundError,
  normalizeAddress,
  parseUnits,
  ServiceUnavailableError,
  ValidationError,
} from "@mp/core";
import type { AnyRoute } from "../http/route.ts";
import { defineRoute } from "../http/route.ts";
import { sandboxDepositBody, sandboxDepositResource } from "./sandbox-deposit-schemas.ts";

interface DestinationMatch {
  id: string;
  wallet_id: string;
  chain: ChainId;
  address: string;
}

/**
 * POST /v1/sandbox/deposits: sends a REAL transfer on the local sandbox chain to one of the
 * merchant's receive addresses; the indexer then sees it like any deposit (PENDING, then CONFIRMED
 * and credited). Nothing is written here: the deposit exists only once the chain has it.
 */
export const sandboxDepositRoute = defineRoute({
  method: "post",
  path: "/v1/sandbox/deposits",
  operationId: "simulateDeposit",
  summary: "Sandbox keys only: send a real transfer on the local sandbox chain to one of your receive addresses",
  tag: "Sandbox",
  auth: true,
  idempotent: true,
  body: sandboxDepositBody,
  response: sandboxDepositResource,
  successStatus: 202,
  errorStatuses: [403, 404, 409, 503],
  async handler({ merchant, body, sql, deps }) {
    if (merchant.environment !== "sandbox" || deps.environment !== "sandbox") {
      throw new ForbiddenError("Simulated deposits are only available with sandbox API keys");
    }
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
    const amountRaw = parseUnits(body.amount, asset.decimals);
    if (amountRaw === null || amountRaw <= 0n) {
      throw new ValidationError(`must be a positive amount with at most ${asset.decimals} decimals`, "amount");
    }
    let txHash: string;
    try {
      ({ txHash } = await faucet.send(destination.address, asset.asset, amountRaw));
    } catch (error) {
      if (error instanceof ValidationError || error instanceof ConflictError) throw error;
      deps.logger.warn({ err: String(error), chain }, "sandbox faucet failed");
      throw new ServiceUnavailableError(`the ${chain} sandbox chain is not answering; retry shortly`);
    }
    return {
      status: 202,
      message: "Transfer sent; the deposit appears in GET /v1/deposits when the indexer sees its block",
      data: {
        chain,
        address: destination.address,
        wallet_id: destination.wallet_id,
        destination_id: destination.id,
        asset: asset.asset,
        amount: body.amount,
        amount_raw: amountRaw.toString(),
        tx_hash: txHash,
        status: "SUBMITTED" as const,
      },
    };
  },
});

export const sandboxRoutes: AnyRoute[] = [sandboxDepositRoute];
