import { createEvmSender } from "@mp/chain-evm";
import { silentLogger } from "@mp/core";
import type { ChainSender } from "@mp/treasury";
import { createPublicClient, erc20Abi, getAddress, type Hex, http, parseEventLogs } from "viem";
import type { StartedReturnsOnBase } from "../api/returns-on-base-support.ts";
import { PAYER } from "../api/returns-on-base-support.ts";
import type { TestMerchant as IndexerMerchant } from "../indexer/indexer-fixtures.ts";
import { addWallet, catchUp, createMerchant } from "../indexer/indexer-fixtures.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { evmBroadcast } from "./broadcast-refusals.ts";

/**
 * Returns to payers on anvil as the returns fuzz drives them (returns-on-base-support.ts: the
 * transfers API, the real indexer, a funded treasury): a merchant whose customer is rejected (its
 * deposits held, returned by the operator), and one whose return policy is `return` (late payments,
 * excesses, failed payouts taken back by the worker), every payment made by anvil's account 0 (PAYER).
 */
export interface ReturnsWorld {
  readonly started: StartedReturnsOnBase;
  /** The merchant of held deposits (an indexer merchant: its customer rejected). */
  readonly heldMerchant: IndexerMerchant;
  /** The merchant whose return policy is `return`, and its verified customer. */
  readonly policyMerchant: TestMerchant;
  readonly policyCustomer: string;
  /** The send pipeline's confirmations on BASE. */
  readonly confirmations: number;
  /** A sender as a new signer process makes it, talking to anvil through `fetch`. */
  sender(fetch: typeof globalThis.fetch): ChainSender;
  readonly broadcasts: typeof evmBroadcast;
  /** A fresh deposit address of the held merchant, watched by the indexer. */
  heldAddress(): Promise<string>;
  /** Lets the indexer record (and confirm) what the chain holds now. */
  catchUp(): Promise<void>;
  /** What the active chain paid PAYER in USDC through the successful transactions `txHashes`. */
  paidToPayer(txHashes: readonly string[]): Promise<bigint>;
}

export async function returnsWorld(started: StartedReturnsOnBase): Promise<ReturnsWorld> {
  const { t, base, keys } = started;
  const db = t.api.db;
  // The API's merchant first: the fixture's merchant takes the next derivation account without the API's counter.
  const policyMerchant = await t.api.merchant();
  await db.query("UPDATE merchants SET return_policy = 'return' WHERE id = $1", [policyMerchant.merchantId]);
  const policyCustomer = (await t.bankCustomer(policyMerchant)).customerId;
  const heldMerchant = await createMerchant(db);
  await db.query(
    `UPDATE customers SET status = 'REJECTED', capabilities = '{"crypto_deposits":false,"virtual_accounts":false,"payouts":false}'
      WHERE id = $1`,
    [heldMerchant.customerId],
  );
  const usdc = base.config.tokens.find((token) => token.asset === "USDC")?.address;
  if (!usdc) throw new Error("no USDC on BASE");
  const client = createPublicClient({ transport: http(base.config.rpcUrl) });
  return {
    started,
    heldMerchant,
    policyMerchant,
    policyCustomer,
    confirmations: 2,
    broadcasts: evmBroadcast,
    sender: (fetch) => createEvmSender({ config: base.config, keys, db, logger: silentLogger(), fetch }),
    async heldAddress() {
      const address = base.address();
      await addWallet(db, heldMerchant, "BASE", address);
      return address;
    },
    async catchUp() {
      // As the indexer's loop does, a tick whose node call failed (a timeout on a loaded machine) is tried again.
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          await catchUp(started.indexer);
          return;
        } catch (error) {
          const retryable = (error as { retryable?: unknown }).retryable === true;
          if (!retryable || Date.now() > deadline) throw error;
        }
      }
    },
    async paidToPayer(txHashes) {
      let paid = 0n;
      for (const hash of txHashes) {
        const receipt = await client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
        if (receipt?.status !== "success") continue;
        const logs = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs });
        for (const log of logs) {
          if (getAddress(log.address) === getAddress(usdc as Hex) && getAddress(log.args.to) === PAYER)
            paid += log.args.value;
        }
      }
      return paid;
    },
  };
}
