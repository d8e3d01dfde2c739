import { describe, expect, it } from "vitest";
import { configEgressProblems, egressProblem, isPrivateHost } from "../../src/core/egress/policy";
import { configSchema } from "../../src/core/config/schema";

describe("egressProblem", () => {
  it("accepts a public https URL", () => {
    expect(egressProblem("https://tools.example/search", false)).toBeUndefined();
    expect(egressProblem("https://8.8.8.8/x", false)).toBeUndefined();
    expect(egressProblem("https://[2001:4860:4860::8888]/x", false)).toBeUndefined();
  });

  it("refuses http unless private egress is allowed", () => {
    expect(egressProblem("http://tools.example/search", false)).toEqual(expect.any(String));
    expect(egressProblem("http://tools.example/search", true)).toBeUndefined();
  });

  it("refuses schemes other than http(s) even when private egress is allowed", () => {
    expect(egressProblem("ftp://tools.example/x", false)).toEqual(expect.any(String));
    expect(egressProblem("ftp://tools.example/x", true)).toEqual(expect.any(String));
    expect(egressProblem("file:///etc/passwd", true)).toEqual(expect.any(String));
  });

  it("refuses text that is not a URL", () => {
    expect(egressProblem("not a url", false)).toEqual(expect.any(String));
    expect(egressProblem("not a url", true)).toEqual(expect.any(String));
  });

  it.each([
    "https://127.0.0.1/",
    "https://127.8.9.10:8443/x",
    "https://10.0.0.5/",
    "https://172.16.0.1/",
    "https://172.31.255.254/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data",
    "https://0.0.0.0/",
    "https://[::1]/",
    "https://[::]/",
    "https://[fe80::1]/",
    "https://[febf::1]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://localhost/",
    "https://api.localhost/",
  ])("refuses the loopback, private or link-local address %s", (url) => {
    expect(egressProblem(url, false)).toEqual(expect.any(String));
    expect(egressProblem(url, true)).toBeUndefined();
  });

  it.each([
    "https://2130706433/",
    "https://0x7f.0.0.1/",
    "https://127.1/",
    "https://017700000001/",
    "https://[0:0:0:0:0:0:0:1]/",
  ])("refuses the loopback spelling %s", (url) => {
    expect(egressProblem(url, false)).toEqual(expect.any(String));
  });
});

describe("isPrivateHost", () => {
  it.each([
    "172.15.255.255",
    "172.32.0.1",
    "11.0.0.1",
    "192.169.0.1",
    "169.255.0.1",
    "8.8.8.8",
    "tools.example",
    "fc.example",
    "fd00.example",
  ])("treats %s as public", (host) => {
    expect(isPrivateHost(host)).toBe(false);
  });

  it.each(["10.255.255.255", "127.0.0.1", "172.20.1.1", "192.168.0.1", "169.254.0.1", "[::1]", "LOCALHOST"])(
    "treats %s as private",
    (host) => {
      expect(isPrivateHost(host)).toBe(true);
    },
  );
});

describe("configEgressProblems", () => {
  const config = (url: string) =>
    configSchema.parse({
      tools: [{ name: "search", url }],
      mcp_servers: [{ name: "docs", url }],
      llm: { base_url: url, model: "m" },
      webhook: { url },
      telegram: { bot_token: "t", api_base_url: url },
    });

  it("accepts a config whose URLs are all public https", () => {
    expect(configEgressProblems(config("https://svc.example/x"), false)).toEqual([]);
  });

  it("reports every outbound URL of the config: tools, MCP, LLM, webhook and Telegram", () => {
    const problems = configEgressProblems(config("http://svc.example/x"), false);
    expect(problems).toHaveLength(5);
    expect(problems.join("\n")).toMatch(/tools\[0\]\.url/);
    expect(problems.join("\n")).toMatch(/mcp_servers\[0\]\.url/);
    expect(problems.join("\n")).toMatch(/llm\.base_url/);
    expect(problems.join("\n")).toMatch(/webhook\.url/);
    expect(problems.join("\n")).toMatch(/telegram\.api_base_url/);
  });

  it("reports private hosts in the config", () => {
    expect(configEgressProblems(config("https://192.168.0.10/x"), false)).toHaveLength(5);
  });

  it("allows http and private hosts when private egress is allowed", () => {
    expect(configEgressProblems(config("http://127.0.0.1:8080/x"), true)).toEqual([]);
  });

  it("checks only the URLs that are configured", () => {
    const c = configSchema.parse({
      tools: [
        { name: "a", url: "https://ok.example" },
        { name: "b", url: "http://bad.example" },
      ],
    });
    const problems = configEgressProblems(c, false);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^tools\[1\]\.url /);
  });
});

describe("IPv6 spellings of IPv4 hosts", () => {
  it("treats IPv4-compatible and NAT64 forms as private", async () => {
    const { isPrivateHost } = await import("../../src/core/egress/policy");
    for (const host of ["[::7f00:1]", "[::10.0.0.1]", "[64:ff9b::a00:1]", "[::ffff:127.0.0.1]"])
      expect(isPrivateHost(host), host).toBe(true);
    expect(isPrivateHost("[2606:4700::1111]")).toBe(false);
  });

  it("checks webhook callback origins like every other outbound URL", async () => {
    const { configSchema } = await import("../../src/core/config/schema");
    const { configEgressProblems } = await import("../../src/core/egress/policy");
    const config = configSchema.parse({
      webhook: { url: "https://bot.example/hook", allowed_callback_origins: ["http://10.0.0.1"] },
    });
    expect(configEgressProblems(config, false)).toEqual(["webhook.allowed_callback_origins[0] must use https:"]);
  });
});

/**
 * docs/api.md#outbound-urls: an IP literal passes only when it is public unicast, whatever its spelling;
 * localhost names and host names ending in a dot never pass. Each row goes through `new URL`
 * (as config and sends do) and, as a bare host, through `isPrivateHost`.
 */
describe("the egress rules, address by address", () => {
  const refused: [host: string, why: string][] = [
    // Names
    ["localhost.", "localhost with a trailing dot"],
    ["foo.localhost", "a *.localhost name"],
    ["foo.localhost.", "a *.localhost name with a trailing dot"],
    ["Api.LocalHost", "localhost in capitals"],
    ["tools.example.", "any name with a trailing dot"],
    // IPv4 special-purpose registry, multicast and reserved
    ["0.1.2.3", "this network, 0.0.0.0/8"],
    ["127.255.255.254", "loopback"],
    ["100.64.0.1", "shared address space, 100.64.0.0/10"],
    ["100.127.255.254", "shared address space, top"],
    ["192.0.0.1", "IETF protocol assignments, 192.0.0.0/24"],
    ["192.0.0.9", "192.0.0.0/24 is refused whole, globally reachable entries too"],
    ["192.0.0.255", "192.0.0.0/24, top"],
    ["192.0.2.1", "documentation, TEST-NET-1"],
    ["198.51.100.7", "documentation, TEST-NET-2"],
    ["203.0.113.9", "documentation, TEST-NET-3"],
    ["198.18.0.1", "benchmarking, 198.18.0.0/15"],
    ["198.19.255.255", "benchmarking, top"],
    ["192.88.99.1", "deprecated 6to4 relay anycast"],
    ["192.31.196.1", "AS112"],
    ["192.175.48.1", "AS112"],
    ["192.52.193.1", "AMT"],
    ["224.0.0.1", "multicast, 224.0.0.0/4"],
    ["239.255.255.250", "multicast, top"],
    ["240.0.0.1", "reserved, 240.0.0.0/4"],
    ["255.255.255.254", "reserved, just below broadcast"],
    ["255.255.255.255", "limited broadcast"],
    // IPv4 spellings the URL parser reads as 127.0.0.1
    ["0x7f.1", "hexadecimal, two parts"],
    ["2130706433", "one decimal number"],
    ["0177.0.0.1", "octal"],
    ["127.1", "two parts"],
    ["127.0.0.1.", "a trailing dot"],
    // IPv6 special-purpose registry and more
    ["[::]", "unspecified"],
    ["[::1]", "loopback"],
    ["[0:0:0:0:0:0:0:1]", "loopback, uncompressed"],
    ["[fe80::1]", "link-local"],
    ["[febf:ffff::1]", "link-local, top of fe80::/10"],
    ["[fec0::1]", "deprecated site-local, fec0::/10"],
    ["[feff::1]", "deprecated site-local, top"],
    ["[fc00::1]", "unique local, fc00::/7"],
    ["[fdff:ffff::1]", "unique local, top"],
    ["[ff00::]", "multicast, ff00::/8"],
    ["[ff02::1]", "multicast, all nodes"],
    ["[2001:db8::1]", "documentation, 2001:db8::/32"],
    ["[3fff::1]", "documentation, 3fff::/20"],
    ["[3fff:fff:ffff::1]", "documentation, top of 3fff::/20"],
    ["[100::1]", "discard-only, 100::/64"],
    ["[100:0:0:1::1]", "dummy prefix, 100:0:0:1::/64"],
    ["[2001::1]", "Teredo, 2001::/32"],
    ["[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "Teredo with an embedded address"],
    ["[2001:2::1]", "benchmarking, 2001:2::/48"],
    ["[2001:10::1]", "ORCHID"],
    ["[2001:1ff:ffff::1]", "IETF protocol assignments, top of 2001::/23"],
    ["[2620:4f:8000::1]", "AS112"],
    ["[5f00::1]", "segment routing, 5f00::/16"],
    ["[4000::1]", "outside 2000::/3, not allocated for unicast"],
    ["[64:ff9b:1::808:808]", "local-use NAT64, 64:ff9b:1::/48, refused whole"],
    // IPv6 forms that embed a non-public IPv4 address
    ["[::ffff:127.0.0.1]", "IPv4-mapped loopback"],
    ["[::ffff:a00:1]", "IPv4-mapped private"],
    ["[::ffff:a9fe:a9fe]", "IPv4-mapped link-local (cloud metadata)"],
    ["[::ffff:0:7f00:1]", "IPv4-translated loopback"],
    ["[::127.0.0.1]", "IPv4-compatible loopback"],
    ["[::7f00:1]", "IPv4-compatible loopback, hex"],
    ["[::c0a8:101]", "IPv4-compatible private"],
    ["[64:ff9b::127.0.0.1]", "NAT64 loopback"],
    ["[64:ff9b::a00:1]", "NAT64 private"],
    ["[64:ff9b::6464:1]", "NAT64 shared address space"],
    ["[2002:7f00:1::]", "6to4 loopback"],
    ["[2002:a00:1::1]", "6to4 private"],
    ["[2002:c0a8:101:1::1]", "6to4 private with a subnet"],
    ["[2002::]", "6to4 of 0.0.0.0"],
    ["[2002:e000:1::]", "6to4 multicast"],
    ["[2002:c612:1::]", "6to4 benchmarking"],
  ];

  it.each(refused)("refuses https://%s/ (%s)", (host) => {
    expect(egressProblem(`https://${host}/`, false)).toEqual(expect.any(String));
    expect(egressProblem(`https://${host}:8443/x?y=1`, false)).toEqual(expect.any(String));
    expect(egressProblem(`https://${host}/`, true)).toBeUndefined();
  });

  it.each(refused)("treats the bare host %s as not public (%s)", (host) => {
    expect(isPrivateHost(host)).toBe(true);
  });

  const accepted: [host: string, why: string][] = [
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["192.0.1.1", "between 192.0.0.0/24 and 192.0.2.0/24"],
    ["198.20.0.1", "just above 198.18.0.0/15"],
    ["198.17.255.255", "just below 198.18.0.0/15"],
    ["100.128.0.1", "just above 100.64.0.0/10"],
    ["223.255.255.255", "just below multicast"],
    ["8.8.8.8.", "the URL parser drops an IPv4 address's trailing dot"],
    ["[2606:4700::1111]", "public IPv6"],
    ["[2001:4860:4860::8888]", "public IPv6"],
    ["[2001:200::1]", "just above 2001::/23"],
    ["[2002:808:808::]", "6to4 of a public address"],
    ["[2002:0808:0808:0:0:0:0:1]", "6to4 of a public address, uncompressed"],
    ["[64:ff9b::8.8.8.8]", "NAT64 of a public address"],
    ["[::ffff:8.8.8.8]", "IPv4-mapped public address"],
    ["example.com", "a public name"],
    ["localhost.example", "a name under a public domain"],
    ["mylocalhost", "not localhost"],
  ];

  it.each(accepted)("accepts https://%s/ (%s)", (host) => {
    expect(egressProblem(`https://${host}/`, false)).toBeUndefined();
    expect(egressProblem(`https://${host}:8443/x`, false)).toBeUndefined();
  });

  it.each(accepted)("treats the bare host %s as public (%s)", (host) => {
    expect(isPrivateHost(host)).toBe(false);
  });

  it.each([
    ["https://localhost.:8080/", "points at localhost"],
    ["https://tools.example./x", "has a host name ending in a dot; write it without the trailing dot"],
    ["https://198.18.0.1/", "points at a non-public address (reserved, documentation or benchmarking)"],
    ["https://224.0.0.1/", "points at a non-public address (multicast)"],
    ["https://[fec0::1]/", "points at a non-public address (site-local)"],
    ["https://[2002:7f00:1::]/", "points at a non-public address (loopback, in 6to4 form)"],
    ["https://[::ffff:10.0.0.1]/", "points at a non-public address (private, in IPv4-mapped form)"],
    ["https://[4000::1]/", "points at a non-public address (outside the global unicast space)"],
  ])("says why %s is refused", (url, problem) => {
    expect(egressProblem(url, false)).toBe(problem);
  });

  it("reports the path of every refused URL in a config", () => {
    const config = configSchema.parse({
      llm: { base_url: "https://[fec0::1]/v1", model: "m" },
      webhook: { url: "https://localhost./hook" },
    });
    expect(configEgressProblems(config, false)).toEqual([
      "llm.base_url points at a non-public address (site-local)",
      "webhook.url points at localhost",
    ]);
  });
});
