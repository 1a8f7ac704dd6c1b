// Not core's index (zod's schemas): the `payments` command checks --role against ROLES before it loads anything.
import { NotFoundError } from "@mp/core/errors";

export const ROLES = ["admin", "owner", "developer", "finance", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** What a route needs. Reads of a merchant's data are open to all its roles; writes are not. */
export type Permission = "merchant:read" | "keys:write" | MerchantPagePermission | OperatorFinancePermission;

// --- Merchant pages (webhooks, sandbox, invites) ---
/**
 * Webhook writes (create, change, test, redeliver) and sandbox sends go with the keys (owner,
 * developer); inviting a user to the merchant and its settings (the return policy) are the owner's
 * (and the operator admin's).
 */
export type MerchantPagePermission =
  | "webhooks:write"
  | "sandbox:write"
  | "users:invite"
  | "payment_requests:write"
  | "transfers:write"
  | "settings:write";
/**
 * Payment requests (ask a payer for an amount, cancel one) and payouts (quote one, start the
 * transfer) are the business's: owner, developer and finance, not a viewer's.
 */
/** An owner's grants on these pages; the operator's admin has them on every merchant. */
const OWNER_PAGE_GRANTS: readonly MerchantPagePermission[] = [
  "webhooks:write",
  "sandbox:write",
  "users:invite",
  "payment_requests:write",
  "transfers:write",
  "settings:write",
];
const MERCHANT_PAGE_GRANTS: Record<Role, readonly MerchantPagePermission[]> = {
  admin: OWNER_PAGE_GRANTS,
  owner: OWNER_PAGE_GRANTS,
  developer: ["webhooks:write", "sandbox:write", "payment_requests:write", "transfers:write"],
  finance: ["payment_requests:write", "transfers:write"],
  viewer: [],
};
/** The roles an owner may give in an invite (admin is the operator's, made with the CLI). */
export const INVITABLE_ROLES = ["owner", "developer", "finance", "viewer"] as const;
// --- end merchant pages ---

// --- Operator and finance pages (operator-*.ts, finance-*.ts) ---
/**
 * `operator`: the whole platform (merchants, chains, jobs, treasury, KYC queue, ledger check,
 * reconciliations, bank statements): the admin only. `finance:read`: a merchant's own journal
 * export, for its owner and finance people (and the admin, for any merchant).
 */
export type OperatorFinancePermission = "operator" | "finance:read";
const OPERATOR_FINANCE_GRANTS: Record<Role, readonly OperatorFinancePermission[]> = {
  admin: ["operator", "finance:read"],
  owner: ["finance:read"],
  developer: [],
  finance: ["finance:read"],
  viewer: [],
};
// --- end operator and finance pages ---

const GRANTS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(["merchant:read", "keys:write", ...MERCHANT_PAGE_GRANTS.admin, ...OPERATOR_FINANCE_GRANTS.admin]),
  owner: new Set(["merchant:read", "keys:write", ...MERCHANT_PAGE_GRANTS.owner, ...OPERATOR_FINANCE_GRANTS.owner]),
  developer: new Set([
    "merchant:read",
    "keys:write",
    ...MERCHANT_PAGE_GRANTS.developer,
    ...OPERATOR_FINANCE_GRANTS.developer,
  ]),
  finance: new Set(["merchant:read", ...MERCHANT_PAGE_GRANTS.finance, ...OPERATOR_FINANCE_GRANTS.finance]),
  viewer: new Set(["merchant:read", ...MERCHANT_PAGE_GRANTS.viewer, ...OPERATOR_FINANCE_GRANTS.viewer]),
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].has(permission);
}

/** The signed-in person, as every route sees them. */
export interface DashboardUser {
  id: string;
  email: string;
  role: Role;
  /** The merchant of a merchant role; undefined for an admin. */
  merchantId: string | undefined;
}

/**
 * A merchant user reaches only their own merchant; an admin reaches every one. Anything else is the
 * API's 404, so an id of another merchant tells nothing about whether it exists.
 */
export function assertMerchantVisible(user: DashboardUser, merchantId: string): void {
  if (user.role !== "admin" && user.merchantId !== merchantId) throw new NotFoundError("Merchant");
}
