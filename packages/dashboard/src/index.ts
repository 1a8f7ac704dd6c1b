export { dashboardActor } from "./audit-log.ts";
export { createDashboardRouter, type DashboardOptions, withDashboard } from "./create-dashboard.ts";
export { PASSWORD_MIN_LENGTH } from "./password-hash.ts";
export { createPasswordLink, PASSWORD_LINK_HOURS, passwordLinkUrl } from "./password-links.ts";
export { isRole, ROLES, type Role } from "./roles.ts";
export { LOCKOUT_MINUTES, MAX_FAILED_SIGN_INS } from "./sign-in.ts";
export { createUser, findUserByEmail } from "./user-store.ts";
