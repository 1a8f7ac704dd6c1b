import { findCustomer } from "../customers/customer-store.ts";
import { defineIdempotentPost } from "../http/idempotent-routes.ts";
import { defineGetRoute, defineNestedListRoute } from "../http/read-routes.ts";
import type { AnyRoute } from "../http/route.ts";
import { submitVerification } from "./submit-verification.ts";
import { submitVerificationBody } from "./verification-payload-schemas.ts";
import {
  customerPathParams,
  listSubmissionsQuery,
  submissionPathParams,
  verificationSubmissionResource,
} from "./verification-schemas.ts";
import { findSubmission, listSubmissions } from "./verification-store.ts";

export const submitVerificationRoute = defineIdempotentPost({
  path: "/v1/customers/{customer_id}/verification-submissions",
  operationId: "submitVerification",
  summary:
    "Submit a verification attempt (TIER_1 or TIER_2) for review; stored encrypted, answered 202 with its safe state",
  tag: "Verification",
  params: customerPathParams,
  body: submitVerificationBody,
  response: verificationSubmissionResource,
  successStatus: 202,
  errorStatuses: [404, 409, 503],
  message: "Verification submitted for review",
  perform: ({ merchant, params, body, sql, deps, idempotencyKey }) =>
    submitVerification(sql, deps, {
      merchantId: merchant.merchantId,
      customerId: params.customer_id,
      tier: body.tier,
      body,
      idempotencyKey,
    }),
});

export const listVerificationSubmissionsRoute = defineNestedListRoute({
  path: "/v1/customers/{customer_id}/verification-submissions",
  operationId: "listVerificationSubmissions",
  summary: "List a customer's verification attempts, newest first (never their payloads)",
  tag: "Verification",
  params: customerPathParams,
  parent: findCustomer,
  notFound: "Customer",
  item: verificationSubmissionResource,
  filters: listSubmissionsQuery,
  read: listSubmissions,
});

export const getVerificationSubmissionRoute = defineGetRoute({
  path: "/v1/customers/{customer_id}/verification-submissions/{submission_id}",
  operationId: "getVerificationSubmission",
  summary: "Retrieve the safe state of one verification attempt (never its payload)",
  tag: "Verification",
  params: submissionPathParams,
  response: verificationSubmissionResource,
  notFound: "Verification submission",
  find: ({ merchant, params, sql }) =>
    findSubmission(sql, merchant.merchantId, params.customer_id, params.submission_id),
});

export const verificationRoutes: AnyRoute[] = [
  submitVerificationRoute,
  listVerificationSubmissionsRoute,
  getVerificationSubmissionRoute,
];
