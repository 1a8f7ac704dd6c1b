import { balanceRoutes } from "./balance/balance-routes.ts";
import { chainRoutes } from "./chains/chain-routes.ts";
import { checkoutRoutes } from "./checkout/checkout-routes.ts";
import { customerRoutes } from "./customers/customer-routes.ts";
import { depositRoutes } from "./deposits/deposit-routes.ts";
import { eventRoutes } from "./events/event-routes.ts";
import type { AnyRoute } from "./http/route.ts";
import { liquidationAddressRoutes } from "./liquidation-addresses/liquidation-routes.ts";
import { openApiRoute } from "./openapi/openapi-route.ts";
import { paymentRequestRoutes } from "./payment-requests/payment-request-routes.ts";
import { quoteRoutes } from "./quotes/quote-routes.ts";
import { rateRoutes } from "./rates/rate-routes.ts";
import { sandboxRoutes } from "./sandbox/sandbox-deposit-routes.ts";
import { systemRoutes } from "./system/system-routes.ts";
import { transferRoutes } from "./transfers/transfer-routes.ts";
import { verificationRoutes } from "./verification/verification-routes.ts";
import { virtualAccountRoutes } from "./virtual-accounts/virtual-account-routes.ts";
import { walletRoutes } from "./wallets/wallet-routes.ts";
import { webhookRoutes } from "./webhooks/webhook-endpoint-routes.ts";

/** Every route of the API, in the order they are mounted and documented. */
export const allRoutes: AnyRoute[] = [
  ...systemRoutes,
  ...chainRoutes,
  ...rateRoutes,
  ...customerRoutes,
  ...verificationRoutes,
  ...walletRoutes,
  ...depositRoutes,
  ...balanceRoutes,
  ...virtualAccountRoutes,
  ...sandboxRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...quoteRoutes,
  ...transferRoutes,
  ...paymentRequestRoutes,
  ...liquidationAddressRoutes,
  ...checkoutRoutes,
];
allRoutes.push(openApiRoute(() => allRoutes));
