/**
 * The lease of an indexer or pipeline that a test drives itself (tick by tick): long enough that a
 * loaded machine's pauses never depose it mid-test (2 s did, on a 2-core machine at load 20). Tests
 * of a deposed leader expire the lease explicitly (UPDATE leases SET expires_at = ...), never by waiting.
 */
export const TEST_LEASE_SECONDS = 30;
