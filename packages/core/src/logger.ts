import { isatty } from "node:tty";
import pino, { type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

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

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** Write to stderr: keeps stdout free for data (CLI commands that print JSON or CSV). */
  stderr?: boolean;
  /** Where lines go instead of stdout/stderr (tests); always JSON. */
  destination?: DestinationStream;
}

/**
 * JSON lines, one per event, for log collectors; human-readable lines (pino-pretty) when the output
 * is a terminal, where a person reads them. Redaction applies to both.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const fd = options.stderr ? 2 : 1;
  const destination =
    options.destination ??
    (isatty(fd) ? pretty({ destination: fd, sync: true, translateTime: "SYS:HH:MM:ss.l" }) : pino.destination(fd));
  return pino(
    {
      name: options.name ?? "payments",
      level: options.level ?? "info",
      redact: { paths: REDACT, censor: "[redacted]" },
    },
    destination,
  );
}

/** A logger that writes nothing: for tests and for CLI commands whose stdout is data. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
