import type { Queryable } from "@mp/db";

/** A domain's own ledger check: the problems it finds (empty when its footprint fits), read-only, one statement each. */
export type LedgerCheck = (q: Queryable) => Promise<string[]>;

const checks = new Map<string, LedgerCheck>();

/**
 * Adds a domain's check to checkLedger's (the transfers' check their holds, fees and refunds): the
 * ledger cannot import the packages that import it, so they register here when loaded. The same name
 * again replaces the check (a module loaded twice registers once).
 */
export function registerLedgerCheck(name: string, check: LedgerCheck): void {
  checks.set(name, check);
}

/** The registered checks' names, in registration order (for a report's "what was checked"). */
export function registeredLedgerChecks(): string[] {
  return [...checks.keys()];
}

/** The problems every registered check finds, in registration order. */
export async function registeredCheckProblems(q: Queryable): Promise<string[]> {
  const problems: string[] = [];
  for (const check of checks.values()) problems.push(...(await check(q)));
  return problems;
}
