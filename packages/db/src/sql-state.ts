/** SQLSTATE codes we react to. Errors are matched by code, never by message text. */
export const SqlState = {
  uniqueViolation: "23505",
  foreignKeyViolation: "23503",
  checkViolation: "23514",
  serializationFailure: "40001",
  deadlockDetected: "40P01",
  invalidTextRepresentation: "22P02",
  duplicateDatabase: "42P04",
  undefinedTable: "42P01",
} as const;

export function sqlState(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/** True for errors that mean "the database cannot be reached" rather than "this query is wrong". */
export function isConnectionError(error: unknown): boolean {
  const code = sqlState(error);
  if (code === undefined) {
    return error instanceof Error && /Connection terminated|timeout|connect/i.test(error.message);
  }
  // Node socket errors and PostgreSQL's connection-exception / operator-intervention classes.
  return (
    ["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EPIPE", "ENOENT", "EHOSTUNREACH"].includes(code) ||
    code.startsWith("08") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03" ||
    code === "53300"
  );
}
