import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Which receivers a deployment may send to (SSRF). A webhook URL is the merchant's input, and the
 * worker sends from inside our network: in production it must never reach our own or our cloud's
 * services. A sandbox allows http and loopback, so a developer receives on their own machine; every
 * other private or special address is refused there too (a sandbox may run in a cloud as well).
 */
export type WebhookEnvironment = "sandbox" | "production";

/** Resolves a host name to every address it has (dns.lookup's `all`); injectable for tests. */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const resolveWithSystem: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A receiver refused by the address rules (at creation: a 400 naming `url`; at delivery: a failed attempt). */
export class WebhookUrlRefusedError extends Error {
  readonly code = "webhook_url_refused";
}

const special = new BlockList();
// IPv4: "this network", private, CGNAT (also Alibaba's metadata 100.100.100.200), link-local (cloud
// metadata 169.254.169.254), IETF protocol assignments (Oracle's 192.0.0.192), documentation and
// benchmarking nets, multicast, reserved, broadcast; Azure's wire server is public but metadata.
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  special.addSubnet(net, prefix, "ipv4");
}
special.addAddress("168.63.129.16", "ipv4");
// IPv6: unspecified, discard, documentation, unique-local (fd00:ec2::254 is AWS's metadata),
// link-local, multicast. IPv4-mapped, NAT64 and 6to4 addresses are judged by the IPv4 inside.
special.addAddress("::", "ipv6");
for (const [net, prefix] of [
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  special.addSubnet(net, prefix, "ipv6");
}

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** Host names that reach metadata services whatever they resolve to. */
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data"]);

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
  const pair = hex ?? sixToFour;
  if (!pair?.[1] || !pair[2]) return undefined;
  const high = Number.parseInt(pair[1], 16);
  const low = Number.parseInt(pair[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Why `address` may not receive in `environment`, or undefined when it may. */
export function refusedAddress(address: string, environment: WebhookEnvironment): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const inner = family === 6 ? embeddedIpv4(address) : undefined;
  const [checked, type] = inner
    ? [inner, "ipv4" as const]
    : [address, family === 4 ? ("ipv4" as const) : ("ipv6" as const)];
  if (loopback.check(checked, type)) {
    return environment === "production" ? "loopback addresses are refused in production" : undefined;
  }
  if (special.check(checked, type)) return "private, link-local, shared or reserved addresses are refused";
  return undefined;
}

/** The URL's own rules, before any DNS: scheme, no credentials, metadata names, IP literals. */
function checkUrlShape(url: URL, environment: WebhookEnvironment): string {
  if (url.protocol !== "https:" && !(url.protocol === "http:" && environment === "sandbox")) {
    throw new WebhookUrlRefusedError(
      environment === "production" ? "must be an https URL" : "must be an http or https URL",
    );
  }
  if (url.username || url.password) throw new WebhookUrlRefusedError("must not carry credentials");
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (METADATA_NAMES.has(host)) throw new WebhookUrlRefusedError("metadata service hosts are refused");
  return host;
}

/**
 * The check at creation (and update): the URL's rules, then every address its host resolves to now.
 * The worker checks again at each delivery (guardedLookup): DNS may change after this.
 */
export async function checkWebhookUrl(
  raw: string,
  environment: WebhookEnvironment,
  resolve: ResolveHost = resolveWithSystem,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefusedError("must be an absolute URL");
  }
  const host = checkUrlShape(url, environment);
  const addresses = isIP(host) ? [host] : await resolveOrRefuse(host, resolve);
  for (const address of addresses) {
    const refused = refusedAddress(address, environment);
    if (refused) throw new WebhookUrlRefusedError(`${url.hostname} resolves to a refused address: ${refused}`);
  }
}

async function resolveOrRefuse(host: string, resolve: ResolveHost): Promise<string[]> {
  try {
    const found = await resolve(host);
    if (found.length === 0) throw new Error("no address");
    return found.map((entry) => entry.address);
  } catch {
    throw new WebhookUrlRefusedError(`${host} does not resolve`);
  }
}

/**
 * A `lookup` for http.request: resolves the host, refuses if any of its addresses is refused, and
 * hands the connection the address it checked, so the socket goes to exactly that address (a DNS
 * answer that changes between check and connect, DNS rebinding, cannot slip through).
 */
export function guardedLookup(
  environment: WebhookEnvironment,
  resolve: ResolveHost = resolveWithSystem,
): LookupFunction {
  return (hostname, options, callback): void => {
    const host = hostname.replace(/^\[|\]$/g, "");
    const found = isIP(host) ? Promise.resolve([{ address: host, family: isIP(host) }]) : resolve(host);
    found.then(
      (addresses) => {
        const first = addresses[0];
        if (!first) return callback(new WebhookUrlRefusedError(`${hostname} does not resolve`), "", 0);
        for (const { address } of addresses) {
          const refused = refusedAddress(address, environment);
          if (refused) {
            return callback(new WebhookUrlRefusedError(`${hostname} resolves to ${address}: ${refused}`), "", 0);
          }
        }
        // With autoSelectFamily (node 20's default) the socket asks for every address: give it only this one.
        if (options?.all) callback(null, [{ address: first.address, family: first.family }]);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), "", 0),
    );
  };
}

/**
 * The URL's rules at delivery time (a stored URL is checked again: the rules may have changed). An IP
 * literal is judged here: node connects to it without calling any lookup.
 */
export function checkUrlAtDelivery(url: URL, environment: WebhookEnvironment): void {
  const host = checkUrlShape(url, environment);
  if (isIP(host) === 0) return;
  const refused = refusedAddress(host, environment);
  if (refused) throw new WebhookUrlRefusedError(`${host}: ${refused}`);
}
