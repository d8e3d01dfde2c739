/** Test helpers: calling the worker as a bot would, and configuring a tenant. */
import { SELF, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, inject, vi } from "vitest";
import { OUTCOME_UNKNOWN_ERROR } from "../src/core/jobs/job";
import { eventually } from "./eventually";
import { TEST_KEYS } from "./setup/bindings";

export const toolServer = () => inject("toolServer");

export interface CallOptions {
  method?: string;
  body?: unknown;
  rawBody?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

export async function api(path: string, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  const key = o.key === undefined ? TEST_KEYS.acme : o.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const body = o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  if (body !== undefined) headers["content-type"] ??= "application/json";
  return SELF.fetch(`https://fanout.test${path}`, {
    method: o.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
}

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** POST a `parallel` call and return status + parsed body. */
export async function parallel(chat: string, body: unknown, o: Omit<CallOptions, "body"> & { query?: string } = {}) {
  const res = await api(`/v1/chats/${chat}/parallel${o.query ?? ""}`, { ...o, body });
  return { status: res.status, body: await json(res) };
}

/** A tenant configuration with HTTP tools pointing at the fake tool server. */
export function toolConfig(extra: Record<string, unknown> = {}) {
  const base = toolServer();
  const tool = (name: string, path: string, more: Record<string, unknown> = {}) => ({
    name,
    description: `fake ${name}`,
    url: `${base}${path}`,
    parameters: { type: "object" },
    secret: "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz",
    ...more,
  });
  return {
    tools: [
      tool("echo", "/echo", { read_only: true }),
      tool("sleep", "/sleep", {
        read_only: true,
        parameters: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
      }),
      tool("hang", "/hang", { read_only: true }),
      tool("hang_write", "/hang"),
      tool("flaky_read", "/flaky", { read_only: true }),
      tool("flaky_write", "/flaky"),
      tool("fail500", "/status/500", { read_only: true }),
      tool("fail404", "/status/404", { read_only: true }),
      tool("refuse", "/error", { read_only: true }),
      tool("text", "/text", { read_only: true }),
      tool("other", "/json-other", { read_only: true }),
      tool("big", "/big", { read_only: true }),
      tool("gzip", "/gzip", { read_only: true }),
      tool("drop_read", "/drop", { read_only: true }),
      tool("drop_write", "/drop"),
      tool("redirect", "/redirect", { read_only: true }),
    ],
    builtins: { http_request: { allowed_origins: [base] } },
    ...extra,
  };
}

/**
 * Limits under which every call runs in the chat's runner objects: a deadline past what a Worker
 * invocation outlives (docs/architecture.md#where-a-call-runs). For tests of the objects' own running.
 */
export const CALLS_IN_OBJECTS = { tool_job_timeout_seconds: 1800 };

export async function configure(config: unknown = toolConfig(), key: string = TEST_KEYS.acme) {
  const res = await api("/v1/config", { method: "PUT", body: config, key });
  if (res.status !== 200) throw new Error(`config rejected: ${res.status} ${await res.text()}`);
  return json(res);
}

export async function toolCalls(
  jobId: string,
): Promise<{ headers: Record<string, string>; body: string; at: number; closed_at?: number }[]> {
  return (await fetch(`${toolServer()}/__calls?job_id=${encodeURIComponent(jobId)}`)).json();
}

export const call = (tool_name: string, tool_args: Record<string, unknown> = {}) => ({ tool_name, tool_args });

/** The ChatDO stub of a chat, for alarms and direct inspection. */
export const chatObject = (chat: string, tenant = "acme") => env.CHAT.getByName(`chat/${tenant}/${chat}`);

/** Reads one job row straight from the ChatDO's SQLite. */
export async function jobRow(chat: string, jobId: string, tenant = "acme") {
  return runInDurableObject(
    chatObject(chat, tenant),
    (_instance, state) =>
      state.storage.sql.exec("SELECT * FROM jobs WHERE job_id = ?", jobId).toArray()[0] as
        | Record<string, any>
        | undefined,
  );
}

/** Waits until a job reaches `state` and returns its row. */
export const jobInState = (chat: string, jobId: string, state: string, tenant = "acme") =>
  eventually(async () => {
    const row = await jobRow(chat, jobId, tenant);
    return row?.state === state ? row : undefined;
  });

/** Moves the fake clock forward (only `Date` is faked) and runs the chat's alarm. */
export async function advanceAndRunAlarm(chat: string, ms: number, tenant = "acme") {
  vi.setSystemTime(Date.now() + ms);
  return runDurableObjectAlarm(chatObject(chat, tenant));
}

export { eventually };

/** Scripts the fake LLM's replies for `model` (each test uses a model name of its own). */
export async function scriptLlm(model: string, replies: unknown[]) {
  await fetch(`${toolServer()}/__llm/script`, { method: "POST", body: JSON.stringify({ model, replies }) });
}

export async function llmRequests(model: string): Promise<{ messages: any[]; tools?: any[] }[]> {
  return (await fetch(`${toolServer()}/__llm/requests?model=${encodeURIComponent(model)}`)).json();
}

/** toolConfig plus the fake LLM under `model`. */
export function agentConfig(model: string, extra: Record<string, unknown> = {}) {
  return toolConfig({ llm: { base_url: `${toolServer()}/llm/v1`, model, api_key: "sk-test" }, ...extra });
}

/**
 * A side-effecting call (`write`) and a read-only one (`read`) whose runner was lost mid-call:
 * once the chat's heartbeat at `after` ms from now found it out, the attempt rules end the first
 * `Outcome unknown` and send the second again as attempt 2 (docs/api.md#attempts-and-retries),
 * which is left running.
 */
export async function expectRecoveredAfterLoss(chat: string, write: string, read: string, after: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + after);
  expect(await runDurableObjectAlarm(chatObject(chat))).toBe(true);
  vi.useRealTimers();
  expect(await jobInState(chat, write, "error")).toMatchObject({ error: OUTCOME_UNKNOWN_ERROR });
  await eventually(async () => (await toolCalls(read)).length === 2);
  expect((await toolCalls(read)).map((c) => JSON.parse(c.body).attempt)).toEqual([1, 2]);
  expect(await toolCalls(write)).toHaveLength(1);
}
