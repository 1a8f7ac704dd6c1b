import { NotFoundError } from "@mp/core";
import type { Request } from "express";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that must be a UUID; anything else names nothing: `resource` not found (404). */
export function uuidParam(req: Request, name: string, resource: string): string {
  const value = String(req.params[name]);
  if (!UUID.test(value)) throw new NotFoundError(resource);
  return value.toLowerCase();
}

export function merchantIdParam(req: Request): string {
  return uuidParam(req, "merchantId", "Merchant");
}
