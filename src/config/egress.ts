/**
 * Outbound URL policy (SPEC §2.1): every URL fanout will call must be https and
 * must not name a loopback, private or link-local IP literal, unless the
 * operator set ALLOW_PRIVATE_EGRESS=true (local runs and tests only). Host
 * names are not resolved here; Cloudflare's egress does not reach private
 * networks anyway, this stops the obvious SSRF spellings early.
 */

export function egressProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (allowPrivate) return url.protocol === "https:" || url.protocol === "http:" ? undefined : "must be an http(s) URL";
  if (url.protocol !== "https:") return "must use https:";
  if (isPrivateHost(url.hostname)) return "points at a loopback, private or link-local address";
  return undefined;
}

export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (host.includes(":")) {
    return (
      host === "::" || host === "::1" || host.startsWith("fe8") || host.startsWith("fe9") || host.startsWith("fea") ||
      host.startsWith("feb") || host.startsWith("fc") || host.startsWith("fd") ||
      // IPv4-mapped, IPv4-compatible (`::a.b.c.d`, `::7f00:1`) and NAT64 forms can all reach IPv4 hosts.
      host.startsWith("::ffff:") || /^::[0-9a-f]{1,4}(:[0-9a-f]{1,4})?$/.test(host) || /^::\d/.test(host) ||
      host.startsWith("64:ff9b:")
    );
  }
  return false;
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
  config.builtins.http_request.allowed_origins.forEach((o, i) => urls.push([`builtins.http_request.allowed_origins[${i}]`, o]));
  config.webhook?.allowed_callback_origins.forEach((o, i) => urls.push([`webhook.allowed_callback_origins[${i}]`, o]));
  return urls.flatMap(([path, url]) => {
    const problem = egressProblem(url, allowPrivate);
    return problem ? [`${path} ${problem}`] : [];
  });
}
