/**
 * A node refusing a broadcast for good, as each family's node says it: the fault search's
 * "refused-for-good" fault (faulty-fetch.ts). Each recognizer tells a broadcast request from the
 * rest and makes the node's refusal of it; `key` names the signed bytes, which stay refused once
 * refused (the same bytes are never accepted again, whoever sends them).
 */
export interface BroadcastRequest {
  /** The signed bytes (or the txID that names them). */
  key: string;
  /** The node's refusal, as it answers this request. */
  refusal(): Response;
}

export type BroadcastRecognizer = (url: string, body: string) => BroadcastRequest | null;

interface RpcEnvelope {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/**
 * JSON-RPC `method` whose first parameter is the signed transaction, refused with `error`
 * (`status`: Bitcoin Core's legacy JSON-RPC 1.0 answers errors with HTTP 500). A batch is
 * recognised when every request in it is that broadcast (Solana's sender sends it alone in one).
 */
export function jsonRpcBroadcast(
  method: string,
  error: { code: number; message: string; data?: unknown },
  status = 200,
): BroadcastRecognizer {
  const raw = (e: RpcEnvelope) =>
    e && e.method === method && Array.isArray(e.params) && typeof e.params[0] === "string" ? e.params[0] : null;
  return (_url, body) => {
    const parsed = parse(body);
    const envelopes = (Array.isArray(parsed) ? parsed : [parsed]) as RpcEnvelope[];
    const keys = envelopes.map(raw);
    if (keys.length === 0 || keys.some((k) => k === null)) return null;
    return {
      key: keys.join(","),
      refusal: () => {
        const answers = envelopes.map((e) => ({ jsonrpc: "2.0", id: e.id ?? null, result: null, error }));
        return Array.isArray(parsed) ? json(answers, 200) : json(answers[0], status);
      },
    };
  };
}

/** EVM: a refusal no fee or wait lifts (geth's core.ErrGasLimit, as text: EVM gives no code). */
export const evmBroadcast = jsonRpcBroadcast("eth_sendRawTransaction", {
  code: -32000,
  message: "exceeds block gas limit",
});

/** Bitcoin Core: the mempool rejects it (-26) for a reason no fee lifts (non-standard output). */
export const bitcoinBroadcast = jsonRpcBroadcast("sendrawtransaction", { code: -26, message: "scriptpubkey" }, 500);

/** Solana: the preflight refuses it (-32002, its simulation's `err`), e.g. a fee payer without the fee. */
export const solanaBroadcast = jsonRpcBroadcast("sendTransaction", {
  code: -32002,
  message: "Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.",
  data: { err: "AccountNotFound", logs: [] },
});

/** java-tron: /wallet/broadcasttransaction answers CONTRACT_VALIDATE_ERROR (e.g. the balance is not sufficient). */
export const tronBroadcast: BroadcastRecognizer = (url, body) => {
  if (!url.endsWith("/wallet/broadcasttransaction")) return null;
  const parsed = parse(body) as { txID?: unknown } | null;
  if (typeof parsed?.txID !== "string") return null;
  const txid = parsed.txID;
  return {
    key: txid,
    refusal: () =>
      json({
        code: "CONTRACT_VALIDATE_ERROR",
        txid,
        message: Buffer.from("Contract validate error : balance is not sufficient (fault injected)").toString("hex"),
      }),
  };
};
