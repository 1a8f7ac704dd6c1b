const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A server timestamp for people; an em dash when there is none. */
export function formatDateTime(value: string | null | undefined): string {
  return value ? dateTime.format(new Date(value)) : "—";
}

/** Seconds as the largest whole units that matter: "42 s", "5 min", "3 h 10 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** The error of a failed action, as a sentence for a notice. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A date's UTC day, `YYYY-MM-DD`, as the finance routes and `<input type="date">` take it. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The finance forms' default range: the first day of this month (UTC) to tomorrow (excluded). */
export function thisMonthSoFar(): { from: string; to: string } {
  const today = new Date();
  return {
    from: isoDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))),
    to: isoDay(new Date(today.getTime() + 86_400_000)),
  };
}

/** Days picked in a page's filter (`YYYY-MM-DD`, both included, UTC) as the API's created_from/created_to. */
export function dayRange(from: string, to: string): { created_from?: string; created_to?: string } {
  return {
    ...(from ? { created_from: `${from}T00:00:00.000Z` } : {}),
    ...(to ? { created_to: `${to}T23:59:59.999Z` } : {}),
  };
}
