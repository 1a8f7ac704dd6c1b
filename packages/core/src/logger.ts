import pino, { type Logger } from "pino";

export type { Logger } from "pino";

/**
 * Paths that may hold secrets. pino replaces them before a line is written, so a careless
 * `logger.info({ req })` can never leak a key, a mnemonic or a KYC payload.
 */
const REDACT = [
  "mnemonic",
  "*.mnemonic",
  "apiKey",
  "*.apiKey",
  "api_key",
  "*.api_key",
  "privateKey",
  "*.privateKey",
  "payload",
  "*.payload",
  "encryptionKey",
  "*.encryptionKey",
  "req.headers.authorization",
  'req.headers["x-service-api-key"]',
  "req.body",
];

/** `stderr: true` keeps stdout free for data (CLI commands that print JSON or CSV). */
export function createLogger(options: { level?: string; name?: string; stderr?: boolean } = {}): Logger {
  return pino(
    {
      name: options.name ?? "payments",
      level: options.level ?? "info",
      redact: { paths: REDACT, censor: "[redacted]" },
    },
    pino.destination(options.stderr ? 2 : 1),
  );
}

/** A logger that writes nothing: for tests and for CLI commands whose stdout is data. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
