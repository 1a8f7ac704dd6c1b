import { z } from "zod";
import type { AppDeps } from "../deps.ts";
import { callProvider, nextCheckDelaySeconds, scheduleNextCheck } from "../verification/provider-checks.ts";
import { loadVirtualAccount, recordActivationOutcome } from "./virtual-account-store.ts";

/** Asks the bank whether a PROVISIONING account is active yet (-> ACTIVE or FAILED). */
export const CHECK_VIRTUAL_ACCOUNT_JOB = "virtual-account.check-activation";

export type ActivationJobDeps = Pick<AppDeps, "db" | "jobs" | "banking" | "encryption" | "logger">;

export const activationJobData = z.object({ virtualAccountId: z.uuid(), check: z.number().int().min(0) });
export type ActivationJobData = z.infer<typeof activationJobData>;

/**
 * One check of the chain (see provider-checks.ts): still provisioning -> the next check, backing
 * off; decided -> recorded once. The bank call is a read, so a repeated run is harmless.
 */
export async function checkVirtualAccountActivation(deps: ActivationJobDeps, data: ActivationJobData): Promise<void> {
  const row = await loadVirtualAccount(deps.db, data.virtualAccountId);
  if (row?.status !== "PROVISIONING" || row.provider_checks !== data.check) return;
  const next = () =>
    scheduleNextCheck(deps, {
      table: "virtual_accounts",
      id: row.id,
      status: "PROVISIONING",
      expectedChecks: data.check,
      queue: CHECK_VIRTUAL_ACCOUNT_JOB,
      data: (check) => ({ virtualAccountId: row.id, check }),
      delaySeconds: nextCheckDelaySeconds(data.check + 1),
    });
  const answer = await callProvider(
    deps.logger,
    { fields: { virtualAccountId: row.id }, warning: "banking provider unavailable; will check again", retry: next },
    () => deps.banking.getAccountStatus(row.provider_account_id),
  );
  if (!answer) return;
  const state = answer.value;
  if (state.status === "PROVISIONING") {
    await next();
    return;
  }
  const applied = await deps.db.tx((client) =>
    recordActivationOutcome(client, deps.encryption, row.id, data.check, state),
  );
  if (applied)
    deps.logger.info({ virtualAccountId: row.id, status: state.status }, "virtual account provisioning decided");
}
