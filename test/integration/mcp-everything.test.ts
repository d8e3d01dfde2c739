/**
 * MCP results as a model should see them (SPEC §4), against the MCP project's reference server
 * `@modelcontextprotocol/server-everything` (test/setup/everything-mcp.ts): a
 * third-party server with sessions and SSE answers. Its tools are spelled
 * `echo`, `get-sum`, `get-tiny-image` and `trigger-long-running-operation`.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { api, call, configure, json, parallel, toolConfig } from "../helpers";

afterEach(() => reset());

const everything = { name: "everything", url: inject("everythingMcp"), headers: {} };
const withEverything = (extra: Record<string, unknown> = {}) => configure(toolConfig({ mcp_servers: [everything], ...extra }));
const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));

/** The tiny PNG the server sends: 4033 bytes, 5380 characters of base64. */
const TINY_IMAGE_BASE64_CHARS = 5380;

describe("MCP results from server-everything", () => {
  it("echo: a text part is the result, and the record keeps the part as sent", async () => {
    await withEverything();
    const { status, body } = await parallel("ev1", { tool_calls: [call("everything__echo", { message: "hello, fanout" })] });
    expect(status).toBe(200);
    expect(body.jobs[0]).toMatchObject({ tool_name: "everything__echo", state: "success", result: "Echo: hello, fanout" });
    expect((await record("ev1", body.jobs[0].job_id)).content).toEqual([{ type: "text", text: "Echo: hello, fanout" }]);
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
