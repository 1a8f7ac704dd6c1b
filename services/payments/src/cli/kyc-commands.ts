import type { ManualDecision, ManualReview } from "@mp/providers";
import { type Command, Option } from "commander";
import { operatorOption, printJson, printList, withDatabase } from "./cli-support.ts";

const collect = (value: string, previous: string[]) => [...previous, value];

// Each action imports what it runs: `payments --help` and every other command never load them.
const providersModule = () => import("@mp/providers");

async function decide(submissionId: string, status: ManualDecision, reasons: string[], operator: string) {
  const [{ decideVerificationReview, KYC_AND_BANKING_QUEUES }, { createJobQueue }, { manualReviewJson }] =
    await Promise.all([import("@mp/api"), import("@mp/jobs"), providersModule()]);
  const review = await withDatabase(async (db, config, logger) => {
    const jobs = await createJobQueue({
      db,
      logger,
      queues: [...KYC_AND_BANKING_QUEUES],
      heartbeatSeconds: config.jobHeartbeatSeconds,
    });
    try {
      return await decideVerificationReview({ db, jobs }, { submissionId, status, reasons, operator });
    } finally {
      await jobs.stop();
    }
  });
  printJson(manualReviewJson(review));
}

/** `payments kyc list|show|approve|reject|request-review` (KYC_PROVIDER=manual's review queue). */
export function addKycCommands(program: Command): void {
  const kyc = program.command("kyc").description("Manual KYC review: the queue of attempts waiting for an operator");

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
      const { listManualReviews, manualReviewJson } = await providersModule();
      const reviews = await withDatabase((db) => listManualReviews(db, { status: options.status }));
      printList(options.json, reviews, {
        json: manualReviewJson,
        text: (review) =>
          `${review.submissionId} ${review.customerType} ${review.tier} ${review.status} submitted ${review.submittedAt.toISOString()}`,
        counted: "reviews",
      });
    });

  kyc
    .command("show")
    .description("Show one attempt with its submitted payload (decrypted for this display only; never logged)")
    .argument("<submission-id>")
    .action(async (submissionId: string) => {
      const [{ openSubmissionForOperator }, { loadEncryptionKeyring }] = await Promise.all([
        import("@mp/api"),
        import("@mp/encryption"),
      ]);
      const shown = await withDatabase((db, config, logger) =>
        openSubmissionForOperator({ db, encryption: loadEncryptionKeyring(config, { logger }) }, submissionId),
      );
      printJson(
        {
          submission_id: shown.submissionId,
          customer_id: shown.customerId,
          customer_type: shown.customerType,
          tier: shown.tier,
          status: shown.status,
          submitted_at: shown.submittedAt.toISOString(),
          payload: shown.payload,
        },
        2,
      );
    });

  kyc
    .command("approve")
    .description("Approve the attempt (decided once, audited)")
    .argument("<submission-id>")
    .addOption(operatorOption("decides"))
    .action((submissionId: string, options: { operator: string }) =>
      decide(submissionId, "APPROVED", [], options.operator),
    );

  // The two decisions that the merchant sees with their reasons.
  const withReasons = [
    {
      command: "reject",
      status: "REJECTED",
      description: "Reject the attempt, with the reasons the merchant will see (final)",
      reason: "a rejection reason (repeat for several)",
    },
    {
      command: "request-review",
      status: "REQUIRES_REVIEW",
      description: "Ask for a corrected attempt (REQUIRES_REVIEW), with the reasons the merchant will see",
      reason: "what to correct (repeat for several)",
    },
  ] as const;
  for (const decision of withReasons) {
    kyc
      .command(decision.command)
      .description(decision.description)
      .argument("<submission-id>")
      .requiredOption("--reason <text>", decision.reason, collect, [] as string[])
      .addOption(operatorOption("decides"))
      .action((submissionId: string, options: { reason: string[]; operator: string }) =>
        decide(submissionId, decision.status, options.reason, options.operator),
      );
  }
}
