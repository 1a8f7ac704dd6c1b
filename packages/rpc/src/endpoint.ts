import { ConfigError } from "@mp/core";

/**
 * An RPC URL with its secrets taken apart. Credentials in the URL (`http://user:pass@host`, the
 * Bitcoin Core habit) become a basic-auth header and leave the URL; every part that may carry a key
 * (user, password, host, path, query values: providers put API keys in any of them) is remembered
 * so `scrub` can remove it from any text the node sends back before it reaches an error or a log.
 */
export interface RpcEndpoint {
  /** The URL to fetch, without user info. */
  url: string;
  /** `Basic …` when the URL carried credentials. */
  authorization: string | undefined;
  /** Removes the URL and its secret-bearing parts from a text. */
  scrub(text: string): string;
}

export function parseRpcEndpoint(rpcUrl: string, setting: string): RpcEndpoint {
  let url: URL;
  try {
    url = new URL(rpcUrl);
  } catch {
    throw new ConfigError(setting, "is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(setting, "must be an http(s) URL");
  let authorization: string | undefined;
  if (url.username !== "" || url.password !== "") {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  }
  const withCredentials = url.toString();
  url.username = "";
  url.password = "";
  return { url: url.toString(), authorization, scrub: (text) => scrubUrl(text, withCredentials) };
}

/** Removes each secret (of 4 characters or more) from `text`. */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join("<rpc>");
  }
  return out;
}

/** Removes any URL, and the secret-bearing parts of `url` (even when written apart), from `text`. */
export function scrubUrl(text: string, url: string): string {
  let out = text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "<rpc>");
  try {
    const parsed = new URL(url);
    out = scrubSecrets(out, [
      parsed.host,
      decodeURIComponent(parsed.username),
      decodeURIComponent(parsed.password),
      parsed.pathname.length > 1 ? parsed.pathname : "",
      ...parsed.pathname.split("/").map((segment) => decodeURIComponent(segment)),
      ...parsed.searchParams.values(),
    ]);
  } catch {
    // not a URL: the generic pattern above is all we can do
  }
  return out;
}
