/**
 * Outbound URL policy (docs/api.md#outbound-urls): every URL fanout will call must be https
 * and must name a public host, unless the operator set
 * ALLOW_PRIVATE_EGRESS=true (local runs and tests only). Host names are not
 * resolved here; Cloudflare's egress does not reach private networks anyway,
 * this stops the SSRF spellings early and again at every send.
 *
 * An IP literal passes only when it is public unicast: anything the IANA
 * special-purpose registries (or multicast, or IPv6 outside 2000::/3) name is
 * refused, so a range nobody listed here is refused too. The classification is
 * ipaddr.js's, kept up to date with those registries by its maintainers, rather
 * than a table of our own that would fall behind them.
 */
import ipaddr from "ipaddr.js";

export function egressProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (allowPrivate) return url.protocol === "https:" || url.protocol === "http:" ? undefined : "must be an http(s) URL";
  if (url.protocol !== "https:") return "must use https:";
  return hostProblem(url.hostname);
}

export function isPrivateHost(hostname: string): boolean {
  return hostProblem(hostname) !== undefined;
}

/**
 * Why fanout must not call `hostname`, or undefined for a public name or address. Takes a URL's
 * `hostname` or a bare host, and reads it the way `new URL` does, so every spelling of an
 * address (`0x7f.1`, `2130706433`, `[0:0::1]`) is judged by the address it means.
 */
export function hostProblem(hostname: string): string | undefined {
  const host = canonicalHost(hostname);
  if (host === undefined) return "does not name a valid host";
  const name = host.replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "points at localhost";
  // `name.` and `name` are one host to DNS but two origins to every comparison fanout makes.
  if (host.endsWith(".")) return "has a host name ending in a dot; write it without the trailing dot";
  if (host.startsWith("[")) return addressProblem(ipaddr.IPv6.parse(host.slice(1, -1)));
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return addressProblem(ipaddr.IPv4.parse(host));
  return undefined;
}

function canonicalHost(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  try {
    return new URL(`https://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
}

/** What a person reads for each of ipaddr.js's range names. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "shared (carrier-grade NAT)",
  private: "private",
  reserved: "reserved, documentation or benchmarking",
  benchmarking: "benchmarking",
  as112: "AS112",
  as112v6: "AS112",
  amt: "AMT",
  uniqueLocal: "unique local",
  deprecatedSiteLocal: "site-local",
  discard: "discard-only",
  rfc6052: "local-use NAT64",
  teredo: "Teredo",
  deprecatedOrchid: "ORCHID",
  orchid2: "ORCHID",
  droneRemoteIdProtocolEntityTags: "drone remote ID",
  segmentRouting: "segment routing",
};

/** 2000::/3: the only IPv6 space IANA allocates for global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

function addressProblem(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  const kind = refusedKind(address);
  return kind && `points at a non-public address (${kind})`;
}

/** Which non-public range `address` is in, in words; undefined when it is public unicast. */
function refusedKind(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  const range: string = address.range();
  if (address.kind() === "ipv4") return range === "unicast" ? undefined : (RANGE_WORDS[range] ?? range);
  const v6 = address as ipaddr.IPv6;
  if (range === "loopback" || range === "unspecified") return RANGE_WORDS[range];
  // These forms reach an IPv4 host through a translator or a tunnel: that IPv4 address decides.
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const kind = refusedKind(embedded.v4);
    return kind && `${kind}, in ${embedded.form} form`;
  }
  if (range === "unicast" && v6.match(GLOBAL_UNICAST_V6)) return undefined;
  return RANGE_WORDS[range] ?? "outside the global unicast space";
}

function embeddedIPv4(v6: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | undefined {
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const [, p1, p2, , , , p6, p7] = v6.parts as [number, number, number, number, number, number, number, number];
  const range: string = v6.range();
  if (range === "ipv4Mapped") return { v4: v4(p6, p7), form: "IPv4-mapped" };
  if (range === "rfc6145") return { v4: v4(p6, p7), form: "IPv4-translated" };
  if (v6.match(NAT64_WELL_KNOWN)) return { v4: v4(p6, p7), form: "NAT64" };
  // 6to4 carries the IPv4 address in bits 16–47.
  if (range === "6to4") return { v4: v4(p1, p2), form: "6to4" };
  if (v6.match(IPV4_COMPATIBLE)) return { v4: v4(p6, p7), form: "IPv4-compatible" };
  return undefined;
}

/** Every outbound URL of a config, with the path a person would look for. */
export function configEgressProblems(
  config: {
    tools: { name: string; url: string }[];
    mcp_servers: { name: string; url: string }[];
    llm: { base_url: string } | null;
    webhook: { url: string; allowed_callback_origins: string[] } | null;
    telegram: { api_base_url: string } | null;
    builtins: { http_request: { allowed_origins: string[] } };
    telemetry?: { otlp: { url: string } } | null;
  },
  allowPrivate: boolean,
): string[] {
  const urls: [string, string][] = [
    ...config.tools.map((t, i): [string, string] => [`tools[${i}].url`, t.url]),
    ...config.mcp_servers.map((s, i): [string, string] => [`mcp_servers[${i}].url`, s.url]),
  ];
  if (config.llm) urls.push(["llm.base_url", config.llm.base_url]);
  if (config.webhook) urls.push(["webhook.url", config.webhook.url]);
  if (config.telegram) urls.push(["telegram.api_base_url", config.telegram.api_base_url]);
  if (config.telemetry) urls.push(["telemetry.otlp.url", config.telemetry.otlp.url]);
  config.builtins.http_request.allowed_origins.forEach((o, i) => {
    urls.push([`builtins.http_request.allowed_origins[${i}]`, o]);
  });
  config.webhook?.allowed_callback_origins.forEach((o, i) => {
    urls.push([`webhook.allowed_callback_origins[${i}]`, o]);
  });
  return urls.flatMap(([path, url]) => {
    const problem = egressProblem(url, allowPrivate);
    return problem ? [`${path} ${problem}`] : [];
  });
}
