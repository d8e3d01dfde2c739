/**
 * MCP results as a model should see them, and MCP progress on the job
 * (docs/api.md#payloads, docs/api.md#mcp-servers, docs/api.md#events-and-webhooks), against the MCP project's
 * reference server
 * `@modelcontextprotocol/server-everything` (test/setup/everything-mcp.ts): a
 * third-party server with sessions and SSE answers. Its tools are spelled
 * `echo`, `get-sum`, `get-tiny-image` and `trigger-long-running-operation`.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, inject, it } from "vitest";
import { api, call, chatObject, configure, eventually, json, jobRow, parallel, toolConfig } from "../helpers";
import { inbox, received as deliveries } from "../webhook-inbox";

afterEach(() => reset());

const everything = { name: "everything", url: inject("everythingMcp"), headers: {} };
const withEverything = (extra: Record<string, unknown> = {}) =>
  configure(toolConfig({ mcp_servers: [everything], ...extra }));
const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));

/** The tiny PNG the server sends: 4033 bytes, 5380 characters of base64. */
const TINY_IMAGE_BASE64_CHARS = 5380;

describe("MCP results from server-everything", () => {
  it("echo: a text part is the result, and the record keeps no second copy of it", async () => {
    await withEverything();
    const { status, body } = await parallel("ev1", {
      tool_calls: [call("everything__echo", { message: "hello, fanout" })],
    });
    expect(status).toBe(200);
    expect(body.jobs[0]).toMatchObject({
      tool_name: "everything__echo",
      state: "success",
      result: "Echo: hello, fanout",
    });
    // Text parts are the result itself: the record keeps no second copy of them.
    expect((await record("ev1", body.jobs[0].job_id)).content).toBeNull();
  });

  it("get-sum: typed arguments are checked against its schema, then summed by the server", async () => {
    await withEverything();
    const { body } = await parallel("ev2", { tool_calls: [call("everything__get-sum", { a: 2, b: 40 })] });
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "The sum of 2 and 40 is 42." });
    const bad = await parallel("ev2", { tool_calls: [call("everything__get-sum", { a: "2", b: 40 })] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_tool_calls");
  });

  it("get-tiny-image: the result shows a placeholder, the record the whole image", async () => {
    await withEverything();
    const { body } = await parallel("ev3", { tool_calls: [call("everything__get-tiny-image")] });
    const expected = "Here's the image you requested:\n[image image/png, 3.9 KB]\nThe image above is the MCP logo.";
    expect(body.jobs[0]).toMatchObject({ state: "success", result: expected });
    expect(body.jobs[0]).not.toHaveProperty("result_truncated");
    const { result, content } = await record("ev3", body.jobs[0].job_id);
    expect(result).toBe(expected);
    expect(content.map((p: any) => p.type)).toEqual(["text", "image", "text"]);
    expect(content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(content[1].data).toHaveLength(TINY_IMAGE_BASE64_CHARS);
    const png = Uint8Array.from(atob(content[1].data), (c) => c.charCodeAt(0));
    expect(png.length).toBe(4033);
    expect([...png.slice(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
    const { rows } = await json(await api("/v1/chats/ev3/log"));
    expect(rows[0]).toMatchObject({ type: "mcp", content: expected });
  });

  it("get-tiny-image with a small max_stored_result_bytes keeps the image as a stub, not half its base64", async () => {
    await withEverything({ limits: { max_stored_result_bytes: 1000 } });
    const { body } = await parallel("ev4", { tool_calls: [call("everything__get-tiny-image")] });
    expect(body.jobs[0].result).toContain("[image image/png, 3.9 KB]");
    const { content } = await record("ev4", body.jobs[0].job_id);
    expect(content[0]).toEqual({ type: "text", text: "Here's the image you requested:" });
    expect(content[1]).toEqual({ type: "image", mimeType: "image/png", truncated: true });
    expect(JSON.stringify(content).length).toBeLessThanOrEqual(1000);
  });
});

interface Socket {
  messages: any[];
  close(): void;
}

async function listen(path: string): Promise<Socket> {
  const res = await api(path, { headers: { upgrade: "websocket" } });
  if (res.status !== 101) throw new Error(`no upgrade: ${res.status} ${await res.text()}`);
  const ws = res.webSocket!;
  const messages: any[] = [];
  ws.addEventListener("message", (e) => {
    messages.push(JSON.parse(e.data as string));
  });
  ws.accept();
  return { messages, close: () => ws.close(1000, "done") };
}

const received = async (name: string) => (await deliveries(name)).map((d) => JSON.parse(d.body));

describe("MCP progress from server-everything", () => {
  it("trigger-long-running-operation: progress on the job and on the live streams, never in webhooks, gone once it ends", {
    timeout: 40_000,
  }, async () => {
    const hooks = await inbox("ev-progress");
    await withEverything({ webhook: { url: hooks, secret: "whsec_dGVzdC13ZWJob29rLXNlY3JldC0xMjM0NTY3OA==" } });
    const tenant = await listen("/v1/events");
    await parallel("ev5", { tool_calls: [call("echo")] }); // the chat exists, so its stream can open
    const chat = await listen("/v1/chats/ev5/events");

    // Six reports, one every 500 ms: more often than the one write a second the job keeps.
    const started = await parallel("ev5", {
      tool_calls: [call("everything__trigger-long-running-operation", { duration: 3, steps: 6 })],
      wait: false,
    });
    const jobId = started.body.jobs[0].job_id;
    const seen = await eventually(async () => {
      const { jobs } = await json(await api("/v1/chats/ev5/jobs"));
      return jobs.find((j: any) => j.job_id === jobId && j.progress)?.progress;
    });
    expect(seen).toMatchObject({ progress: expect.any(Number), total: 6 });
    expect(JSON.parse((await jobRow("ev5", jobId))!.progress)).toMatchObject({ total: 6 });

    const { body } = await parallel("ev5", { job_ids: [jobId], timeout: 30 });
    expect(body.jobs[0]).toMatchObject({
      state: "success",
      result: "Long running operation completed. Duration: 3 seconds, Steps: 6.",
    });
    expect(body.jobs[0]).not.toHaveProperty("progress");
    expect((await jobRow("ev5", jobId))!.progress).toBeNull();
    const { jobs } = await json(await api("/v1/chats/ev5/jobs"));
    expect(jobs.every((j: any) => j.progress === undefined)).toBe(true);

    await eventually(async () =>
      chat.messages.some((m) => m.type === "batch.finished" && m.data.results.jobs[0].job_id === jobId),
    );
    const progress = chat.messages.filter((m) => m.type === "job.progress");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(4);
    const times = progress.map((m) => Date.parse(m.timestamp));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);
    const values = progress.map((m) => m.data.progress.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    for (const m of progress) {
      expect(m.data).toMatchObject({
        tenant: "acme",
        chat_id: "ev5",
        job_id: jobId,
        batch_id: expect.any(String),
        tool_name: "everything__trigger-long-running-operation",
      });
      expect(m.data.progress.total).toBe(6);
      expect(m.id).toMatch(/^evt_/);
    }
    // A progress event carries the seq of the last kept event: it never moves a resume cursor on.
    const kept = chat.messages.filter((m) => m.type !== "job.progress").map((m) => m.data.seq);
    for (const m of progress) expect(kept).toContain(m.data.seq);
    chat.close();

    await eventually(async () => tenant.messages.some((m) => m.type === "job.progress" && m.data.job_id === jobId));
    const onTenant = tenant.messages.filter((m) => m.type === "job.progress");
    expect(onTenant.every((m) => Number.isInteger(m.cursor))).toBe(true);
    tenant.close();

    // Webhooks get the job's kept events, and no progress; the outbox holds no progress rows.
    const delivered = await eventually(async () => {
      const list = await received("ev-progress");
      return list.some((e) => e.type === "batch.finished" && e.data.results.jobs[0].job_id === jobId)
        ? list
        : undefined;
    });
    expect(delivered.map((e) => e.type)).toContain("job.finished");
    expect(delivered.map((e) => e.type)).not.toContain("job.progress");
    const stored = await runInDurableObject(
      chatObject("ev5"),
      (_i, s) => s.storage.sql.exec("SELECT COUNT(*) AS n FROM events WHERE type = 'job.progress'").one().n,
    );
    expect(stored).toBe(0);
  });
});
