import { randomUUID } from "node:crypto";
import type { ChainId } from "@mp/core";
import type { SignedAttempt, StoredAttempt } from "../../src/chain-sender.ts";

/**
 * A signed attempt as the send pipeline stores it (state "signed", not yet broadcast), for sender
 * tests that call broadcast()/status() without a pipeline; `overrides` for later states or a fixed id.
 */
export const storedAttempt = (
  chain: ChainId,
  attempt: SignedAttempt,
  overrides: Partial<StoredAttempt> = {},
): StoredAttempt => ({
  ...attempt,
  id: randomUUID(),
  chain,
  state: "signed",
  replaces: null,
  blockHeight: null,
  blockHash: null,
  createdAt: new Date(),
  broadcastAt: null,
  ...overrides,
});
