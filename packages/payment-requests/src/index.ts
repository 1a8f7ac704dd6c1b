export { cancelPaymentRequest } from "./cancel-request.ts";
export { CHECKOUT_TOKEN_PATTERN, type CheckoutRow, findCheckoutRow } from "./checkout-token.ts";
export { type CheckoutView, checkoutView } from "./checkout-view.ts";
export { insertPaymentRequest, type NewPaymentRequest } from "./create-request.ts";
export { matchPaymentRequest } from "./match-payments.ts";
export { type MatchPass, matchPaymentRequestsOnce, startPaymentRequestMatcher } from "./matcher.ts";
export {
  findPaymentRequestForOperator,
  listPaymentRequestsForOperator,
  type OperatorPaymentRequest,
} from "./operator-reads.ts";
export { registerPaymentRequestMetrics } from "./payment-request-metrics.ts";
export {
  fetchUsdRates,
  type OptionAsset,
  priceOptions,
  type QuotedOption,
  type RequestedAmount,
  rateLockEnd,
} from "./rate-lock.ts";
export { formatRequestAmount, parseRequestAmount, USD_CURRENCY } from "./request-amount.ts";
export { type Figures, requestFigures } from "./request-figures.ts";
export {
  findPaymentRequest,
  findPaymentRequestRow,
  hostedUrl,
  PAYMENT_REQUEST_COLUMNS,
  type PaymentRequestResource,
  type PaymentRequestRow,
  type PresentSettings,
  presentPaymentRequests,
} from "./request-resource.ts";
export { requoteIfLapsed } from "./requote.ts";
export {
  PAYABLE_STATUSES,
  PAYMENT_FLAGS,
  PAYMENT_REQUEST_STATUSES,
  type PaymentFlag,
  type PaymentRequestStatus,
} from "./statuses.ts";
