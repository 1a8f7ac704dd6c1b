import { userInfo } from "node:os";
import { checkVerificationReviewNow, KYC_AND_BANKING_QUEUES, openSubmissionForOperator } from "@mp/api";
import { type AppConfig, createLogger, type Logger, loadConfig } from "@mp/core";
import type { Database } from "@mp/db";
import { loadEncryptionKeyring } from "@mp/encryption";
import { createJobQueue } from "@mp/jobs";
import { decideManualReview, listManualReviews, type ManualDecision, type ManualReview } from "@mp/providers";
import { type Command, Option } from "commander";
import { openMigratedDatabase } from "../runtime.ts";

function kycLogger(config: AppConfig): Logger {
  return createLogger({ level: config.logLevel === "info" ? "warn" : config.logLevel, stderr: true });
}

async function withDatabase<T>(fn: (db: Database, config: AppConfig, logger: Logger) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = kycLogger(config);
  const { db } = await openMigratedDatabase(config, logger);
  try {
    return await fn(db, config, logger);
  } finally {
    await db.close();
  }
}

function reviewJson(review: ManualReview) {
  return {
    submission_id: review.submissionId,
    review_id: review.reviewId,
    customer_type: review.customerType,
    tier: review.tier,
    status: review.status,
    reasons: review.reasons,
    submitted_at: review.submittedAt.toISOString(),
    decided_by: review.decidedBy,
    decided_at: review.decidedAt?.toISOString() ?? null,
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

async function decide(submissionId: string, status: ManualDecision, reasons: string[], operator: string) {
  const review = await withDatabase(async (db, config, logger) => {
    const decided = await decideManualReview(db, { submissionId, status, reasons, operator });
    // The customer's status follows at once rather than at the next scheduled check. Should this
    // fail, the scheduled check still finds the decision: it is already committed.
    const jobs = await createJobQueue({
      db,
      logger,
      queues: [...KYC_AND_BANKING_QUEUES],
      heartbeatSeconds: config.jobHeartbeatSeconds,
    });
    try {
      await checkVerificationReviewNow({ db, jobs }, submissionId);
    } finally {
      await jobs.stop();
    }
    return decided;
  });
  process.stdout.write(`${JSON.stringify(reviewJson(review))}\n`);
}

/** `payments kyc list|show|approve|reject|request-review` (KYC_PROVIDER=manual's review queue). */
export function addKycCommands(program: Command): void {
  const kyc = program.command("kyc").description("Manual KYC review: the queue of attempts waiting for an operator");
  const operatorOption = () =>
    new Option("--operator <name>", "who decides (recorded in the audit log)").default(userInfo().username);

  kyc
    .command("list")
    .description("List reviews, oldest first (default: the ones waiting for a decision)")
    .addOption(
      new Option("--status <status>", "which reviews")
        .choices(["PENDING", "APPROVED", "REJECTED", "REQUIRES_REVIEW", "ALL"])
        .default("PENDING"),
    )
    .option("--json", "one JSON object per line")
    .action(async (options: { status: ManualReview["status"] | "ALL"; json?: boolean }) => {
      const reviews = await withDatabase((db) => listManualReviews(db, { status: options.status }));
      for (const review of reviews) {
        process.stdout.write(
          options.json
            ? `${JSON.stringify(reviewJson(review))}\n`
            : `${review.submissionId} ${review.customerType} ${review.tier} ${review.status} submitted ${review.submittedAt.toISOString()}\n`,
        );
      }
      if (!options.json) process.stdout.write(`${reviews.length} reviews\n`);
    });

  kyc
    .command("show")
    .description("Show one attempt with its submitted payload (decrypted for this display only; never logged)")
    .argument("<submission-id>")
    .action(async (submissionId: string) => {
      const shown = await withDatabase((db, config, logger) =>
        openSubmissionForOperator({ db, encryption: loadEncryptionKeyring(config, { logger }) }, submissionId),
      );
      process.stdout.write(
        `${JSON.stringify(
          {
            submission_id: shown.submissionId,
            customer_id: shown.customerId,
            customer_type: shown.customerType,
            tier: shown.tier,
            status: shown.status,
            submitted_at: shown.submittedAt.toISOString(),
            payload: shown.payload,
          },
          null,
          2,
        )}\n`,
      );
    });

  kyc
    .command("approve")
    .description("Approve the attempt (decided once, audited)")
    .argument("<submission-id>")
    .addOption(operatorOption())
    .action((submissionId: string, options: { operator: string }) =>
      decide(submissionId, "APPROVED", [], options.operator),
    );

  kyc
    .command("reject")
    .description("Reject the attempt, with the reasons the merchant will see (final)")
    .argument("<submission-id>")
    .requiredOption("--reason <text>", "a rejection reason (repeat for several)", collect, [] as string[])
    .addOption(operatorOption())
    .action((submissionId: string, options: { reason: string[]; operator: string }) =>
      decide(submissionId, "REJECTED", options.reason, options.operator),
    );

  kyc
    .command("request-review")
    .description("Ask for a corrected attempt (REQUIRES_REVIEW), with the reasons the merchant will see")
    .argument("<submission-id>")
    .requiredOption("--reason <text>", "what to correct (repeat for several)", collect, [] as string[])
    .addOption(operatorOption())
    .action((submissionId: string, options: { reason: string[]; operator: string }) =>
      decide(submissionId, "REQUIRES_REVIEW", options.reason, options.operator),
    );
}
