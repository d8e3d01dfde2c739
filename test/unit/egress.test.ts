import { describe, expect, it } from "vitest";
import { configEgressProblems, egressProblem, isPrivateHost } from "../../src/config/egress";
import { configSchema } from "../../src/config/schema";

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

  it.each(["https://2130706433/", "https://0x7f.0.0.1/", "https://127.1/", "https://017700000001/", "https://[0:0:0:0:0:0:0:1]/"])(
    "refuses the loopback spelling %s",
    (url) => {
      expect(egressProblem(url, false)).toEqual(expect.any(String));
    },
  );
});

describe("isPrivateHost", () => {
  it.each(["172.15.255.255", "172.32.0.1", "11.0.0.1", "192.169.0.1", "169.255.0.1", "8.8.8.8", "tools.example", "fc.example", "fd00.example"])(
    "treats %s as public",
    (host) => {
      expect(isPrivateHost(host)).toBe(false);
    },
  );

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
    const c = configSchema.parse({ tools: [{ name: "a", url: "https://ok.example" }, { name: "b", url: "http://bad.example" }] });
    const problems = configEgressProblems(c, false);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^tools\[1\]\.url /);
  });
});

describe("IPv6 spellings of IPv4 hosts", () => {
  it("treats IPv4-compatible and NAT64 forms as private", async () => {
    const { isPrivateHost } = await import("../../src/config/egress");
    for (const host of ["[::7f00:1]", "[::10.0.0.1]", "[64:ff9b::a00:1]", "[::ffff:127.0.0.1]"]) expect(isPrivateHost(host), host).toBe(true);
    expect(isPrivateHost("[2606:4700::1111]")).toBe(false);
  });

  it("checks webhook callback origins like every other outbound URL", async () => {
    const { configSchema } = await import("../../src/config/schema");
    const { configEgressProblems } = await import("../../src/config/egress");
    const config = configSchema.parse({ webhook: { url: "https://bot.example/hook", allowed_callback_origins: ["http://10.0.0.1"] } });
    expect(configEgressProblems(config, false)).toEqual(["webhook.allowed_callback_origins[0] must use https:"]);
  });
});
