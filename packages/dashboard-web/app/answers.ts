/**
 * The back end's answer types (packages/dashboard/src/answers.ts, built from its own view functions
 * and the /v1 resources' zod schemas). Type-only: nothing of the back end enters the bundle.
 */
export type * from "../../dashboard/src/answers.ts";
