/**
 * What the MCP clients' tests share: the service's address and key, its MCP URL for a chat, and
 * the test kit's tools and scripted model, configured as the tenant's.
 */
import { inject } from "vitest";
import { startModel } from "../../packages/testing/src/model";
import { startTools, type TestTool } from "../../packages/testing/src/tools";

export const url = () => inject("fanoutUrl");
export const key = () => inject("fanoutKey");
export const auth = () => ({ authorization: `Bearer ${key()}` });

export const mcpUrl = (chat: string, query = "") => `${url()}/v1/chats/${chat}/mcp${query}`;

/** A chat id of its own per test. */
export const chat = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

export async function api(path: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(`${url()}${path}`, {
    method,
    headers: { ...auth(), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The kit's tools and scripted model, served from this process and configured as the tenant's. */
// `any`: each tool types its own arguments.
export async function startKit(tools: Record<string, TestTool<any>>, config: Record<string, unknown> = {}) {
  const [served, model] = await Promise.all([startTools(tools), startModel()]);
  await api("/v1/config", { ...config, tools: served.config, llm: null }, "PUT");
  return {
    tools: served,
    model,
    async close() {
      await Promise.all([served.close(), model.close()]);
    },
  };
}
