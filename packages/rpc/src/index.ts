export { parseRpcEndpoint, type RpcEndpoint, scrubSecrets, scrubUrl } from "./endpoint.ts";
export {
  JsonNumberLiteral,
  type JsonValue,
  parseJsonExact,
  quoteInexactNumbers,
  stringifyJson,
} from "./exact-json.ts";
export {
  DEFAULT_RPC_TIMEOUT_MS,
  type FetchLike,
  HttpTransport,
  type HttpTransportOptions,
  type PostOptions,
} from "./http-transport.ts";
export {
  JsonRpcClient,
  type JsonRpcClientOptions,
  type JsonRpcOutcome,
  type JsonRpcRequest,
} from "./json-rpc-client.ts";
export { JsonRpcError, RpcAnswerError, RpcUnavailableError } from "./rpc-errors.ts";
export { validatedAnswer } from "./validated-answer.ts";
