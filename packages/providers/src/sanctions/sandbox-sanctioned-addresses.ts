/**
 * The sandbox's magic sanctioned address: a deposit from it is held (`sanctions_match`) and a payout
 * to it refused (422 destination_sanctioned), without any list file, so integrations can test both
 * paths. Screened only in the sandbox (PAYMENTS_ENV=sandbox), on every EVM chain (an EVM address is
 * one account on all of them).
 */
export const SANDBOX_SANCTIONED_ADDRESSES: readonly string[] = ["0xbadbadbadbadbadbadbadbadbadbadbadbadbad0"];
