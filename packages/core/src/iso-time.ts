/** A timestamp as the API and the events answer it: RFC 3339 in UTC with milliseconds. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
