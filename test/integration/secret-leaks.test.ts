/**
 * Stored secrets never come back out (docs/api.md#secrets): a tenant's LLM key, MCP headers, bot token and
 * tool secrets appear in no response, job record, log row, event or webhook body, also when the
 * calls that carry them fail, and also when a remote echoes them (an MCP server's content parts, an
 * LLM's reply and the tool-call arguments it writes), in plain, base64, base64url, percent-encoded
 * or hex form, and as a JSON or an HTML encoder writes them (`\/`, `\u002B`, `&#47;`, `&#x2b;`).
 * Each secret here is a canary string searched for in everything a key holder can read and
 * everything a tool host received.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  agentConfig,
  api,
  call,
  configure,
  eventually,
  json,
  parallel,
  scriptLlm,
  toolCalls,
  toolServer,
} from "../helpers";
import { inbox, received } from "../webhook-inbox";

afterEach(async () => {
  await reset();
});

const CANARIES = {
  // `/` and `+`: the characters JSON and HTML encoders escape.
  llm: "sk-canary/llm+key-5f2a",
  mcp: "AKIA/canary+mcp-token-91c3",
  telegram: "4242:canary-bot-token-77de",
  tool: "whsec_Y2FuYXJ5LXRvb2wtc2VjcmV0LXZhbHVl",
  webhook: "whsec_Y2FuYXJ5LXdlYmhvb2stc2VjcmV0LTEyMw==",
};

describe("stored secrets", () => {
  it("appear in no answer, record, log row, event or webhook body, when their calls succeed or fail", async () => {
    const hook = await inbox("leaks");
    const base = agentConfig("m-leaks");
    await configure({
      ...base,
      tools: (base.tools as any[]).map((t) => ({ ...t, secret: CANARIES.tool })),
      llm: { base_url: `${toolServer()}/llm/v1`, model: "m-leaks", api_key: CANARIES.llm },
      mcp_servers: [
        { name: "docs", url: `${toolServer()}/mcp/leaks`, headers: { Authorization: `Bearer ${CANARIES.mcp}` } },
      ],
      telegram: { bot_token: CANARIES.telegram, api_base_url: `${toolServer()}/telegram` },
      webhook: { url: hook, secret: CANARIES.webhook },
    });
    await scriptLlm("m-leaks", [{ status: 401 }]);

    const notify = encodeURIComponent(JSON.stringify({ telegram_chat_id: 7 }));
    const batch = await parallel(
      "leaks",
      {
        tool_calls: [
          call("spawn_task", { task: "fail at the provider" }),
          call("docs__refuse"),
          call("docs__search", { query: "q" }),
          call("fail404"),
          call("echo", { x: 1 }),
        ],
        timeout: 20,
      },
      { query: `?notify=${notify}` },
    );
    expect(batch.status).toBe(200);
    expect(batch.body.jobs.map((j: any) => j.state)).toEqual(["error", "error", "success", "error", "success"]);
    await eventually(async () => (await received("leaks")).some((r) => r.body.includes('"batch.finished"')));

    const reads = [
      JSON.stringify(batch.body),
      ...(await Promise.all(
        batch.body.jobs.map((j: any) => api(`/v1/chats/leaks/jobs/${j.job_id}`).then((r) => r.text())),
      )),
      await (await api(`/v1/chats/${batch.body.jobs[0].context_id}/jobs`)).text(),
      await (await api("/v1/chats/leaks/log")).text(),
      await (await api("/v1/chats/leaks")).text(),
      await (await api("/v1/chats")).text(),
      await (await api("/v1/chats/leaks/events?status=delivered")).text(),
      await (await api("/v1/config")).text(),
      await (await api("/v1/tools")).text(),
      ...(await received("leaks")).map((r) => r.body),
    ].join("\n");
    for (const [field, canary] of Object.entries(CANARIES)) {
      expect(reads.includes(canary), `${field} secret found in what a key holder can read`).toBe(false);
    }
    // The checks above saw real content: the failures' texts and the events are there.
    expect(reads).toContain("LLM provider error");
    expect(reads).toContain("HTTP 404");
    expect(reads).toContain("subagent.finish");
  });

  it("stay out when a remote echoes them: MCP content parts, an LLM's reply and the arguments it writes for a tool", async () => {
    const hook = await inbox("echoes");
    const base = agentConfig("m-echoes");
    await configure({
      ...base,
      llm: { base_url: `${toolServer()}/llm/v1`, model: "m-echoes", api_key: CANARIES.llm },
      mcp_servers: [
        { name: "docs", url: `${toolServer()}/mcp/echoes`, headers: { Authorization: `Bearer ${CANARIES.mcp}` } },
        {
          name: "refusing",
          url: `${toolServer()}/mcp/echoes-refusing`,
          headers: { Authorization: `Bearer ${CANARIES.mcp}` },
        },
      ],
      webhook: { url: hook, secret: CANARIES.webhook },
    });
    await fetch(`${toolServer()}/__mcp/state?instance=echoes-refusing`, {
      method: "POST",
      body: JSON.stringify({ refuseEchoing: true }),
    });
    // A server that cannot be listed, and answers with the header it was sent: its failure is an answer too.
    const refused = await parallel("echoes-refused", { tool_calls: [call("refusing__search", { query: "q" })] });
    expect(refused.status, JSON.stringify(refused.body)).toBe(502);
    // The provider echoes the Authorization header it was sent: into a tool's arguments, then into its answer.
    await scriptLlm("m-echoes", [
      { tool_calls: [{ name: "echo", arguments: { x: "{{authorization}}", y: "{{authorization_base64}}" } }] },
      {
        content:
          "my key is {{authorization}}, or {{authorization_base64}}, or {{authorization_json}}, or {{authorization_html}}",
      },
    ]);
    const batch = await parallel("echoes", {
      tool_calls: [call("spawn_task", { task: "say your key" }), call("docs__echo_auth")],
      timeout: 20,
    });
    expect(batch.status).toBe(200);
    expect(batch.body.jobs.map((j: any) => j.state)).toEqual(["success", "success"]);
    await eventually(async () => (await received("echoes")).some((r) => r.body.includes('"batch.finished"')));

    const child = batch.body.jobs[0].context_id as string;
    const childJobs = (await json(await api(`/v1/chats/${child}/jobs`))).jobs as { job_id: string }[];
    const sentToTools = (await Promise.all(childJobs.map((j) => toolCalls(j.job_id)))).flat().map((c) => c.body);
    expect(sentToTools).toHaveLength(1);
    const reads = [
      JSON.stringify(batch.body),
      JSON.stringify(refused.body),
      ...(await Promise.all(
        batch.body.jobs.map((j: any) => api(`/v1/chats/echoes/jobs/${j.job_id}`).then((r) => r.text())),
      )),
      ...(await Promise.all(childJobs.map((j) => api(`/v1/chats/${child}/jobs/${j.job_id}`).then((r) => r.text())))),
      await (await api(`/v1/chats/${child}/log`)).text(),
      await (await api(`/v1/chats/${child}/transcript`)).text(),
      await (await api("/v1/chats/echoes/log")).text(),
      await (await api("/v1/chats/echoes/events?status=delivered")).text(),
      ...(await received("echoes")).map((r) => r.body),
      ...sentToTools,
    ].join("\n");

    const bytes = (text: string) => new TextEncoder().encode(text);
    const b64 = (text: string) => btoa(String.fromCharCode(...bytes(text)));
    const hex = (text: string) => [...bytes(text)].map((b) => b.toString(16).padStart(2, "0")).join("");
    for (const [field, canary] of [
      ["llm", CANARIES.llm],
      ["mcp", CANARIES.mcp],
    ] as const) {
      const forms = {
        plain: canary,
        base64: b64(`Bearer ${canary}`).slice(4, 24),
        base64url: b64(`Bearer ${canary}`).slice(4, 24).replace(/\+/g, "-").replace(/\//g, "_"),
        percent: encodeURIComponent(`Bearer ${canary}`),
        hex: hex(canary),
        json: canary.replaceAll("/", "\\/").replaceAll("+", "\\u002B"),
        html: canary.replaceAll("/", "&#47;").replaceAll("+", "&#x2b;"),
      };
      for (const [form, text] of Object.entries(forms)) {
        // Reads are JSON, which writes each `\` of a stored text as `\\`: both as written and as stored.
        for (const read of [reads, reads.replaceAll("\\\\", "\\")]) {
          expect(
            read.includes(text),
            `${field} secret found ${form} in what a key holder can read or a tool received`,
          ).toBe(false);
        }
      }
    }
    // The checks above saw the echoes, redacted: the parts, the reply and the arguments are there.
    expect(reads).toContain("echo://authorization");
    expect(reads).toContain("image/png");
    expect(reads).toContain("my key is Bearer ***");
    expect(reads).toContain("or Bearer ***, or Bearer ***");
    expect(reads).toContain("json *** html ***");
    expect(reads).toContain("invalid credentials: ***");
    expect(sentToTools[0]).toContain("Bearer ***");
  });
});
