/**
 * No glob, schema pattern or argument holds the isolate (docs/api.md#configuration): a tenant's pathological glob
 * answers at once and leaves another tenant's requests alone, a pattern RE2 cannot run is
 * refused at PUT/PATCH and left out of an MCP server's list, the patterns that remain run on RE2
 * under a work meter, and they only ever see strings of at most 10,000 characters.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_KEYS } from "../setup/bindings";
import { api, call, configure, json, parallel, toolConfig, toolServer } from "../helpers";

afterEach(async () => {
  await reset();
});

/** The glob that took 4.5 s as a regex against 48-character names; none of these names ends in b. */
const STALL_GLOB = "*a*a*a*a*a*a*a*b";
const longNames = Array.from({ length: 200 }, (_, i) => `${"a".repeat(44)}c${String(i).padStart(3, "0")}`);

const patterned = (pattern: string) => ({
  type: "object",
  properties: { word: { type: "string", pattern } },
  required: ["word"],
});

describe("globs", () => {
  it("a pathological glob answers at once, and another tenant's request is not held up by it", async () => {
    const base = toolServer();
    await configure({
      tools: longNames.map((name) => ({ name, url: `${base}/echo`, read_only: true })),
      agents: { picky: { tools: [STALL_GLOB], permission: { task: [[STALL_GLOB, "allow"]] } } },
    });
    await configure(toolConfig(), TEST_KEYS.globex);

    const started = Date.now();
    const [picky, tools, other] = await Promise.all([
      parallel("globs", { tool_calls: [call(longNames[0]!)] }, { query: "?agent=picky" }),
      api("/v1/tools?agent=picky"),
      (async () => {
        // Sent while the picky tenant's requests are being matched.
        await new Promise((r) => setTimeout(r, 5));
        const at = Date.now();
        const res = await api("/v1/config", { key: TEST_KEYS.globex });
        return { status: res.status, ms: Date.now() - at };
      })(),
    ]);
    const elapsed = Date.now() - started;
    console.log(`pathological glob: both requests ${elapsed} ms; the other tenant's GET /v1/config ${other.ms} ms`);

    // The glob matches none of the names: the call is an unknown tool; the list has only the built-ins.
    expect(picky.status).toBe(400);
    expect(picky.body.error.code).toBe("unknown_tool");
    expect(((await json(tools)).tools as any[]).map((t) => t.function.name)).toEqual(["parallel", "wait"]);
    expect(other.status).toBe(200);
    // The regex matcher took seconds here; generous bounds, so a loaded machine does not fail them.
    expect(other.ms).toBeLessThan(1500);
    expect(elapsed).toBeLessThan(3000);
  });
});

describe("schema patterns", () => {
  it("refuses a pattern RE2 cannot run at PUT and at PATCH, naming where it is, and stores nothing", async () => {
    await configure();
    const before = await json(await api("/v1/config"));
    const tool = { name: "stall", url: `${toolServer()}/echo`, parameters: patterned("^(a+)\\1$") };

    const put = await api("/v1/config", { method: "PUT", body: { ...toolConfig(), tools: [tool] } });
    expect(put.status).toBe(400);
    const putError = (await json(put)).error;
    expect(putError.message).toContain(
      `tools[0].parameters/properties/word/pattern "^(a+)\\\\1$" cannot run in linear time`,
    );

    const patch = await api("/v1/config", {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: { tools: [...(before.tools as any[]).map((t) => ({ ...t, secret: undefined })), tool] },
    });
    expect(patch.status).toBe(400);
    expect((await json(patch)).error.message).toContain("cannot run in linear time");

    const patternProperties = await api("/v1/config", {
      method: "PUT",
      body: { tools: [{ ...tool, parameters: { type: "object", patternProperties: { "^(?=\\d)x$": {} } } }] },
    });
    expect(patternProperties.status).toBe(400);
    expect((await json(patternProperties)).error.message).toContain(
      "backreferences, lookahead, lookbehind and counts over 1000 are not supported",
    );

    expect(await json(await api("/v1/config"))).toEqual(before);
  });

  it("refuses a pattern hidden behind a $ref, and references that fan out, without validating anything against them", async () => {
    const hidden = { type: "object", properties: { q: { $ref: "#/x" } }, x: { type: "string", pattern: "^(a)\\1$" } };
    const $defs: Record<string, unknown> = { a22: { type: "string" } };
    for (let i = 0; i < 22; i++)
      $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
    const fanOut = { type: "object", properties: { q: { $ref: "#/$defs/a0" } }, $defs };

    const started = Date.now();
    const res = await api("/v1/config", {
      method: "PUT",
      body: {
        tools: [
          { name: "hidden", url: `${toolServer()}/echo`, parameters: hidden },
          { name: "fans", url: `${toolServer()}/echo`, parameters: fanOut },
        ],
      },
    });
    expect(res.status).toBe(400);
    const { problems } = (await json(res)).error;
    expect(problems).toEqual([
      expect.stringMatching(/^tools\[0\]\.parameters\/x\/pattern "\^\(a\)\\\\1\$" cannot run in linear time/),
      "tools[1].parameters/ expands to more than 1000 subschemas through its $refs; reference each definition from fewer places",
    ]);
    // Validating {} against the second took seconds (2^22 branches) when the PUT tried it.
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("checks a pattern only against strings of at most 10,000 characters", async () => {
    await configure({
      tools: [{ name: "word", url: `${toolServer()}/echo`, read_only: true, parameters: patterned("^[a-z]+$") }],
    });
    const fits = await parallel("patterns", { tool_calls: [call("word", { word: "a".repeat(10_000) })] });
    expect(fits.status).toBe(200);
    expect(fits.body.jobs[0].state).toBe("success");

    const long = await parallel("patterns", { tool_calls: [call("word", { word: "a".repeat(10_001) })] });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe("invalid_tool_calls");
    expect(long.body.error.message).toBe(
      "tool_calls[0] is not a valid tool call: /word is longer than 10000 characters, the most fanout checks against this tool's schema patterns and formats; send a shorter value",
    );
    // A tool whose schema has no pattern takes long strings as before.
    const plain = await parallel("patterns", { tool_calls: [call("wait", { seconds: 1 })] });
    expect(plain.status).toBe(200);
  });

  it("fixed-count patterns: too many are refused at PUT, and the most a schema may hold cannot stall another tenant", async () => {
    const fixed = (counts: number[]) => ({
      type: "object",
      properties: { word: { type: "string", allOf: counts.map((n) => ({ pattern: `.{${n}}y` })) } },
    });
    await configure();
    const before = await json(await api("/v1/config"));
    // The probe: fifty of `.{5000}y`. Each one is over RE2's counts and fanout's steps per pattern.
    const fifty = await api("/v1/config", {
      method: "PUT",
      body: {
        ...toolConfig(),
        tools: [{ name: "fixed", url: `${toolServer()}/echo`, parameters: fixed(Array(50).fill(5000)) }],
      },
    });
    expect(fifty.status).toBe(400);
    expect((await json(fifty)).error.message).toMatch(
      /tools: schema patterns of about 250\d+ steps in all; at most 50000 are checked/,
    );
    const twenty = await api("/v1/config", {
      method: "PUT",
      body: {
        ...toolConfig(),
        tools: [{ name: "fixed", url: `${toolServer()}/echo`, parameters: fixed(Array(20).fill(999)) }],
      },
    });
    expect((await json(twenty)).error.message).toMatch(
      /tools\[0\]\.parameters\/ has patterns of about 200\d\d steps in all; at most 10000 are run per call/,
    );
    expect(await json(await api("/v1/config"))).toEqual(before);

    // Ten of about 990 steps fit the schema's bound; against 10,000 characters the meter stops them.
    await configure({
      tools: [
        {
          name: "fixed",
          url: `${toolServer()}/echo`,
          read_only: true,
          parameters: fixed(Array.from({ length: 10 }, (_, i) => 990 - i)),
        },
      ],
    });
    await configure(toolConfig(), TEST_KEYS.globex);
    const word = "x".repeat(10_000);
    const [attack, other] = await Promise.all([
      parallel("fixed", { tool_calls: Array.from({ length: 8 }, () => call("fixed", { word })) }),
      (async () => {
        await new Promise((r) => setTimeout(r, 5));
        const at = Date.now();
        const res = await api("/v1/tools", { key: TEST_KEYS.globex });
        return { status: res.status, ms: Date.now() - at };
      })(),
    ]);
    console.log(`fixed-count patterns: the other tenant's GET /v1/tools ${other.ms} ms`);
    expect(attack.status).toBe(400);
    expect(attack.body.error.message).toBe(
      "tool_calls[0] is not a valid tool call: / takes more work to check against tool 'fixed''s schema patterns than fanout spends on one request; send shorter strings, or fewer of these calls per request",
    );
    expect(other.status).toBe(200);
    // Before RE2 and the meter this took 9.5 s; a generous bound, so a loaded machine does not fail it.
    expect(other.ms).toBeLessThan(1000);

    // A short argument is checked as usual: it fails the patterns, not the meter.
    const short = await parallel("fixed", { tool_calls: [call("fixed", { word: "xy" })] });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toBe(
      "tool_calls[0] is not a valid tool call: /word Instance does not match every subschema.",
    );
  });

  it("the worst pattern the checks accept: one request's 32 calls share one work budget", async () => {
    // 1,472 steps; 124 characters stay within what one check may spend, so a budget per call let
    // all 32 run, 13–15 ms each in workerd: 480 ms of CPU for one request.
    await configure({
      tools: [
        { name: "pat", url: `${toolServer()}/echo`, read_only: true, parameters: patterned("(?:a?){490}a{490}") },
      ],
      limits: { max_calls: 32 },
    });
    const res = await api("/v1/chats/pattern-meter/tool-calls", {
      body: {
        tool_calls: Array.from({ length: 32 }, (_, i) => ({
          id: `c${i}`,
          name: "pat",
          arguments: { word: "a".repeat(124) },
        })),
      },
    });
    expect(res.status).toBe(200);
    const contents = ((await json(res)).results as { content: string }[]).map((r) => r.content);
    const refused = contents.filter((c) => c.includes("than fanout spends on one request"));
    expect(contents[0]).toBe("Error: tool_calls[0] is not a valid tool call: /word String does not match pattern.");
    expect(refused.length).toBeGreaterThanOrEqual(30);
    expect(refused[0]).toBe(
      `Error: tool_calls[${contents.indexOf(refused[0]!)}] is not a valid tool call: / takes more work to check against tool 'pat''s schema patterns than fanout spends on one request; send shorter strings, or fewer of these calls per request`,
    );
  });

  it("leaves an MCP tool whose schema pattern RE2 cannot run out of the list, and keeps the rest", async () => {
    const instance = "stall";
    await fetch(`${toolServer()}/__mcp/state?instance=${instance}`, {
      method: "POST",
      body: JSON.stringify({ stall: true }),
    });
    await configure(toolConfig({ mcp_servers: [{ name: "docs", url: `${toolServer()}/mcp/${instance}` }] }));
    const names = ((await json(await api("/v1/tools"))).tools as any[]).map((t) => t.function.name);
    expect(names).toContain("docs__search");
    expect(names).not.toContain("docs__stall");
    const { status, body } = await parallel("mcp-stall", { tool_calls: [call("docs__stall", { word: "aaaa" })] });
    expect(status).toBe(400);
    expect(body.error.code).toBe("unknown_tool");
  });
});
