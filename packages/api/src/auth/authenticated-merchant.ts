import type { Environment } from "./api-keys.ts";

/** Who a request's API key speaks for: the merchant, the key and its environment. */
export interface AuthenticatedMerchant {
  merchantId: string;
  keyId: string;
  environment: Environment;
}
