/**
 * The /v1 resources' types, each the z.infer of the schema its routes answer with (and /openapi.json
 * is built from), and a few list routes' filters (the z.input of their query schemas): what a client,
 * the dashboard's front end first, reads instead of re-typing the JSON. Types only: nothing here runs.
 */
import type { z } from "zod";
import type { listEventsQuery } from "./events/event-schemas.ts";
import type { drainResource, liquidationAddressResource } from "./liquidation-addresses/liquidation-schemas.ts";
import type { pageSchema } from "./openapi/page-schema.ts";
import type { paymentRequestResource } from "./payment-requests/payment-request-schemas.ts";
import type { listTransfersQuery } from "./transfers/transfer-schemas.ts";
import type {
  createdWebhookEndpointResource,
  deletedWebhookEndpointResource,
  deliveryAttemptResource,
  redeliveryResource,
  rotatedSecretResource,
} from "./webhooks/webhook-endpoint-schemas.ts";

export type { TransfersReport } from "@mp/transfers";
export type { MerchantBalance } from "./balance/merchant-balance.ts";
export type { CustomerResource } from "./customers/customer-schemas.ts";
export type { DepositResource } from "./deposits/deposit-schemas.ts";
export type { EventResource } from "./events/event-schemas.ts";
export type { Money } from "./quotes/quote-schemas.ts";
export type { SandboxDepositResource } from "./sandbox/sandbox-deposit-schemas.ts";
export type { TransferFundingResource, TransferResource } from "./transfers/transfer-schemas.ts";
export type { VerificationSubmissionResource } from "./verification/verification-schemas.ts";
export type { BankDepositResource } from "./virtual-accounts/bank-deposit-schemas.ts";
export type { VirtualAccountResource } from "./virtual-accounts/virtual-account-schemas.ts";
export type { DestinationResource, WalletResource } from "./wallets/wallet-schemas.ts";
export type { WebhookEndpointResource } from "./webhooks/webhook-endpoint-schemas.ts";

export type LiquidationAddressResource = z.infer<typeof liquidationAddressResource>;
export type LiquidationDrainResource = z.infer<typeof drainResource>;
export type DeliveryAttemptResource = z.infer<typeof deliveryAttemptResource>;
export type PaymentRequestResource = z.infer<typeof paymentRequestResource>;
export type CreatedWebhookEndpointResource = z.infer<typeof createdWebhookEndpointResource>;
export type DeletedWebhookEndpointResource = z.infer<typeof deletedWebhookEndpointResource>;
export type RedeliveryResource = z.infer<typeof redeliveryResource>;
export type RotatedSecretResource = z.infer<typeof rotatedSecretResource>;

/** GET /v1/events' and GET /v1/transfers' filters as a client writes them in the URL (before parsing). */
export type ListEventsQuery = z.input<typeof listEventsQuery>;
export type ListTransfersQuery = z.input<typeof listTransfersQuery>;

/** A numbered page of a /v1 list (spec 2.1) of `T`. */
export type Page<T> = Omit<z.infer<ReturnType<typeof pageSchema>>, "items"> & { items: T[] };
