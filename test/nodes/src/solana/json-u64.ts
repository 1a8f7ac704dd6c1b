/**
 * JSON.stringify for objects holding u64 values as bigint: they are written as bare JSON numbers
 * with every digit (as the Rust RPC server writes them), even beyond 2^53.
 */
const MARK = "\u0000u64:";
const MARKED = /"\\u0000u64:(\d+)"/g;

export function stringifyU64(value: unknown): string {
  let marked = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "bigint") return v;
    marked = true;
    return MARK + v.toString();
  });
  return marked ? text.replace(MARKED, "$1") : text;
}
