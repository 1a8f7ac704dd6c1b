/**
 * The response bodies of spec part 2.1 and part 7. Every body the API writes is built here.
 */

/** Success envelope. `error` is a placeholder string on success, as the spec shows. */
export function successBody(
  data: unknown,
  message = "OK",
): { data: unknown; error: string; message: string; status: "success" } {
  return { data, error: "", message, status: "success" };
}

/** Envelope error form: data is an empty object. */
export function envelopeErrorBody(code: string, message: string) {
  return { data: {}, error: code, message, status: "error" as const };
}

/** Nested error form, used for authentication, idempotency errors and the address endpoint. */
export function nestedErrorBody(code: string, message: string) {
  return { error: { code, message } };
}

export interface Page<T> {
  items: T[];
  limit: number;
  page: number;
  total: number;
  total_pages: number;
}

export function pageOf<T>(items: T[], total: number, limit: number, page: number): Page<T> {
  return { items, limit, page, total, total_pages: Math.ceil(total / limit) };
}
