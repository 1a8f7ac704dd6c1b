import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { parseJsonExact } from "@mp/rpc";

/**
 * Bitcoin Core's HTTP JSON-RPC front end (src/httprpc.cpp, src/rpc/request.cpp): POST only, HTTP
 * basic auth, JSON-RPC 1.0 ("legacy") and 2.0 requests, batches. Legacy errors set the HTTP status
 * (500, 404 for an unknown method); 2.0 answers are always HTTP 200 and notifications get 204.
 */

/** A JSON-RPC error with Core's code and message. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_PARSE_ERROR = -32700;
export const RPC_MISC_ERROR = -1;

/** Runs one call; returns the result as JSON text (the node renders amounts as exact literals). */
export type Dispatch = (method: string, params: unknown[] | Record<string, unknown>) => string;

interface Reply {
  body: string;
  status: number;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function createRpcHttpServer(options: { user: string; password: string; dispatch: Dispatch }): Server {
  const expectedAuth = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString("base64")}`;
  return createServer((request, response) => {
    handle(request, response, expectedAuth, options.dispatch).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  expectedAuth: string,
  dispatch: Dispatch,
): Promise<void> {
  if (request.method !== "POST") {
    response.writeHead(405, { "content-type": "text/html" });
    response.end("JSONRPC server handles only POST requests");
    return;
  }
  if (request.headers.authorization !== expectedAuth) {
    response.writeHead(401, { "www-authenticate": 'Basic realm="jsonrpc"' });
    response.end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) {
      response.writeHead(413);
      response.end();
      return;
    }
    chunks.push(buffer);
  }
  let parsed: unknown;
  try {
    parsed = parseJsonExact(Buffer.concat(chunks).toString("utf8"));
  } catch {
    send(response, { status: 500, body: legacyError(null, RPC_PARSE_ERROR, "Parse error") });
    return;
  }
  if (Array.isArray(parsed)) {
    const replies = parsed.map((item) => callOne(item, dispatch)).filter((reply) => reply.body !== "");
    send(response, { status: 200, body: `[${replies.map((reply) => reply.body).join(",")}]` });
    return;
  }
  if (parsed === null || typeof parsed !== "object") {
    send(response, { status: 500, body: legacyError(null, RPC_PARSE_ERROR, "Top-level object parse error") });
    return;
  }
  const reply = callOne(parsed, dispatch);
  if (reply.body === "") {
    response.writeHead(204);
    response.end();
    return;
  }
  send(response, reply);
}

function send(response: ServerResponse, reply: Reply): void {
  response.writeHead(reply.status, { "content-type": "application/json" });
  response.end(`${reply.body}\n`);
}

function idJson(id: unknown): string {
  return id === undefined ? "null" : JSON.stringify(id);
}

function legacyError(id: unknown, code: number, message: string): string {
  return `{"result":null,"error":${JSON.stringify({ code, message })},"id":${idJson(id)}}`;
}

function legacyStatus(code: number): number {
  if (code === RPC_METHOD_NOT_FOUND) return 404;
  if (code === RPC_INVALID_REQUEST) return 400;
  return 500;
}

function callOne(item: unknown, dispatch: Dispatch): Reply {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    return { status: 400, body: legacyError(null, RPC_INVALID_REQUEST, "Invalid Request object") };
  }
  const request = item as Record<string, unknown>;
  const id = request.id;
  const version2 = request.jsonrpc === "2.0";
  const fail = (code: number, message: string): Reply =>
    version2
      ? { status: 200, body: `{"jsonrpc":"2.0","error":${JSON.stringify({ code, message })},"id":${idJson(id)}}` }
      : { status: legacyStatus(code), body: legacyError(id, code, message) };
  if (request.jsonrpc !== undefined && request.jsonrpc !== "1.0" && request.jsonrpc !== "1.1" && !version2) {
    return fail(RPC_INVALID_REQUEST, "JSON-RPC version not supported");
  }
  if (typeof request.method !== "string") return fail(RPC_INVALID_REQUEST, "Method must be a string");
  const params = request.params ?? [];
  if (typeof params !== "object" || params === null) {
    return fail(RPC_INVALID_REQUEST, "Params must be an array or object");
  }
  let result: string;
  try {
    result = dispatch(request.method, params as unknown[] | Record<string, unknown>);
  } catch (error) {
    if (error instanceof RpcFailure) return fail(error.code, error.message);
    return fail(RPC_MISC_ERROR, error instanceof Error ? error.message : String(error));
  }
  // A JSON-RPC 2.0 request without an id is a notification: it gets no answer.
  if (version2 && !("id" in request)) return { status: 204, body: "" };
  return version2
    ? { status: 200, body: `{"jsonrpc":"2.0","result":${result},"id":${idJson(id)}}` }
    : { status: 200, body: `{"result":${result},"error":null,"id":${idJson(id)}}` };
}
