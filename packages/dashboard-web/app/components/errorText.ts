import { ApiError } from "../api.ts";

/** What a failed action tells the user: the server's message, or the error itself. */
export function errorText(error: unknown): string {
  return error instanceof ApiError ? error.message : String(error);
}
