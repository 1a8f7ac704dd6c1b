import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Real node answers recorded from public sources, kept outside the repository in
 * `../shared/fixtures/real-rpc/` (beside the checkout; each file's source is in its SOURCES.md).
 * They are read at test time and never copied in. Without that directory the fidelity suites are
 * skipped with `REAL_RPC_MISSING` as the reason.
 */
export const REAL_RPC_DIR = fileURLToPath(new URL("../../../../shared/fixtures/real-rpc/", import.meta.url));

export const realRpcAvailable = existsSync(`${REAL_RPC_DIR}SOURCES.md`);

export const REAL_RPC_MISSING = `real-rpc fixtures not found at ${REAL_RPC_DIR} (../shared/fixtures/real-rpc beside the checkout): fidelity suite skipped`;

/** The recorded file's text, exactly as stored (parse it with the client's own parser). */
export function realRpcText(name: string): string {
  return readFileSync(`${REAL_RPC_DIR}${name}`, "utf8");
}
