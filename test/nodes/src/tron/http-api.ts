import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { z } from "zod";
import { renderBlock, renderTransactionInfos } from "./tron-chain.ts";
import { type Answer, keptInfo, type WalletContext, walletRoute } from "./wallet-api.ts";

const MAX_BODY_BYTES = 1024 * 1024;
/** java-tron's limit for getblockbylimitnext. */
const MAX_LIMIT_NEXT = 100;

/** Pays from the node's funded key; returns the queued transaction's id, or throws a RangeError. */
export type ControlTransfer = (body: unknown) => string;

const numSchema = z.object({ num: z.number().int().optional() });
const limitSchema = z.object({ startNum: z.number().int(), endNum: z.number().int() });

const ok = (body: string): Answer => ({ status: 200, body });
/** java-tron reports failures as HTTP 200 with `{"Error": "<class> : <message>"}`. */
const javaError = (message: string): Answer => ({ status: 200, body: JSON.stringify({ Error: message }) });

/**
 * The subset of the java-tron full-node HTTP API the adapter reads and the treasury sender uses
 * (POST, JSON bodies, hex addresses; see wallet-api.ts for building, broadcasting and receipts),
 * answered in the documented shapes, plus the test-only `POST /_test/transfer`.
 */
export function createTronHttpServer(wallet: WalletContext, control: ControlTransfer): Server {
  return createServer((req, res) => {
    readBody(req, res, (text) => {
      const answer = route(wallet, control, req.url ?? "/", text);
      res.writeHead(answer.status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(answer.body),
      });
      res.end(answer.body);
    });
  });
}

function route(wallet: WalletContext, control: ControlTransfer, url: string, text: string): Answer {
  const chain = wallet.chain;
  const path = url.split("?")[0] ?? "/";
  let body: unknown = {};
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch (error) {
      return javaError(`class org.tron.json.JSONException : ${(error as Error).message}`);
    }
  }
  switch (path) {
    case "/wallet/getnowblock":
      return ok(renderBlock(chain.tip()));
    case "/wallet/getblockbynum": {
      const parsed = numSchema.safeParse(body);
      if (!parsed.success) return javaError("class org.tron.core.services.http.JsonFormat$ParseException : num");
      const block = chain.block(parsed.data.num ?? 0);
      return ok(block ? renderBlock(block) : "{}");
    }
    case "/wallet/gettransactioninfobyblocknum": {
      const parsed = numSchema.safeParse(body);
      if (!parsed.success) return javaError("class org.tron.core.services.http.JsonFormat$ParseException : num");
      const num = parsed.data.num ?? 0;
      if (num <= 0) return ok("{}");
      const block = chain.block(num);
      return ok(block && wallet.transactionHistory ? keptInfo(wallet, renderTransactionInfos(block)) : "[]");
    }
    case "/wallet/getblockbylimitnext": {
      const parsed = limitSchema.safeParse(body);
      if (!parsed.success) return javaError("class org.tron.core.services.http.JsonFormat$ParseException : startNum");
      const { startNum, endNum } = parsed.data;
      if (endNum <= startNum || endNum - startNum > MAX_LIMIT_NEXT || startNum < 0) {
        return ok("{}");
      }
      const blocks: string[] = [];
      for (let num = startNum; num < endNum; num++) {
        const block = chain.block(num);
        if (block) blocks.push(renderBlock(block));
      }
      return ok(blocks.length === 0 ? "{}" : `{"block":[${blocks.join(",")}]}`);
    }
    case "/_test/transfer":
      try {
        return ok(JSON.stringify({ txID: control(body) }));
      } catch (error) {
        return { status: 400, body: JSON.stringify({ error: error instanceof Error ? error.message : String(error) }) };
      }
    default:
      return (
        walletRoute(wallet, path, body) ?? { status: 404, body: JSON.stringify({ Error: `no such endpoint ${path}` }) }
      );
  }
}

function readBody(req: IncomingMessage, res: ServerResponse, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res.writeHead(413).end();
      req.destroy();
    } else chunks.push(chunk);
  });
  req.on("end", () => {
    if (size <= MAX_BODY_BYTES) done(Buffer.concat(chunks).toString("utf8"));
  });
}
