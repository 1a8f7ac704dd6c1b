import { afterAll, beforeAll } from "vitest";
import { startTransfersApi, type TransfersApi } from "../api/transfers-support.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { late } from "../support/late.ts";

/**
 * What the in-process money fuzz worlds share: the transfers API in this process (no chain node:
 * the signer's sends are ended by the steps, or stay open) and the merchant whose money the cases move.
 */
export interface TransfersFuzzWorld {
  t: TransfersApi;
  merchant: TestMerchant;
}

/**
 * The opening of an in-process money fuzz file: the transfers API and a new merchant of it, then the
 * world's own parts (`parts`: its customer, a funded transfer), in the calling describe block's
 * beforeAll; the API stops in its afterAll, also when `parts` failed. The world stands for what it
 * will be from the start (see late): pass it to the model's tests.
 */
export function useTransfersFuzzWorld<P extends object>(
  parts: (world: TransfersFuzzWorld) => Promise<P>,
): TransfersFuzzWorld & P {
  let t: TransfersApi | undefined;
  let world: (TransfersFuzzWorld & P) | undefined;
  beforeAll(async () => {
    t = await startTransfersApi();
    const base = { t, merchant: await t.api.merchant() };
    world = { ...base, ...(await parts(base)) };
  });
  afterAll(() => t?.stop());
  return late("the fuzz world", () => world);
}
