/**
 * Live event streams (docs/api.md#live-streams): WebSockets on the hibernation API, opened by
 * browsers with single-use tickets, resumable with `?after=`.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, chatObject, configure, eventually, json, parallel, toolConfig } from "../helpers";

afterEach(() => reset());

interface Socket {
  ws: WebSocket;
  messages: any[];
  close(): void;
}

/** Opens a stream the way a browser does: a ticket in the URL, no key. */
async function connect(path: string, ticket: string, after?: number): Promise<Socket> {
  const query = `ticket=${ticket}${after === undefined ? "" : `&after=${after}`}`;
  const res = await api(`${path}?${query}`, { key: null, headers: { upgrade: "websocket" } });
  if (res.status !== 101) throw new Error(`no upgrade: ${res.status} ${await res.text()}`);
  const ws = res.webSocket!;
  const messages: any[] = [];
  ws.addEventListener("message", (e) => messages.push(JSON.parse(e.data as string)));
  ws.accept();
  return { ws, messages, close: () => ws.close(1000, "done") };
}

async function ticket(chatId?: string): Promise<string> {
  const res = await api("/v1/ws-tickets", { body: chatId ? { chat_id: chatId } : {} });
  expect(res.status).toBe(200);
  const body = await json(res);
  expect(body.expires_in).toBe(60);
  return body.ticket;
}

const echo = (x: unknown) => ({ tool_name: "echo", tool_args: { x } });
const until = (s: Socket, type: string) => eventually(async () => s.messages.find((m) => m.type === type));

describe("the chat stream", () => {
  it("streams a running batch's events; a reconnect with after gets the ones it missed", async () => {
    await configure(toolConfig());
    await parallel("ls1", { tool_calls: [echo(0)] }); // the chat exists before anyone listens
    const first = await connect("/v1/chats/ls1/events", await ticket("ls1"));
    await parallel("ls1", { tool_calls: [echo(1)] });
    await until(first, "batch.finished");
    const lastSeen = Math.max(...first.messages.map((m) => m.data.seq));
    first.close();

    await parallel("ls1", { tool_calls: [echo(2)] }); // happens while nobody listens
    const second = await connect("/v1/chats/ls1/events", await ticket("ls1"), lastSeen);
    const replayed = await until(second, "batch.finished");
    expect(second.messages[0].data.seq).toBe(lastSeen + 1);
    const seqs = second.messages.map((m) => m.data.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(replayed.data.results.jobs[0].result).toBe('{"x":2}');
    second.close();
  });

  it("refuses a reused ticket, a ticket for another chat, and a key in the URL", async () => {
    await configure(toolConfig());
    await parallel("ls2", { tool_calls: [echo(0)] });
    await parallel("ls2b", { tool_calls: [echo(0)] });
    const once = await ticket("ls2");
    (await connect("/v1/chats/ls2/events", once)).close();
    const reused = await api(`/v1/chats/ls2/events?ticket=${once}`, { key: null, headers: { upgrade: "websocket" } });
    expect(reused.status).toBe(401);
    expect((await json(reused)).error.message).toBe(
      "The ticket is invalid, used or expired; get a new one with POST /v1/ws-tickets.",
    );
    const other = await api(`/v1/chats/ls2b/events?ticket=${await ticket("ls2")}`, {
      key: null,
      headers: { upgrade: "websocket" },
    });
    expect(other.status).toBe(403);
    const keyInUrl = await api("/v1/chats/ls2/events?api_key=test-key-acme", {
      key: null,
      headers: { upgrade: "websocket" },
    });
    expect(keyInUrl.status).toBe(401);
    // A ticket opens the live streams and nothing else, upgrade header or not.
    expect((await api(`/v1/chats/ls2/jobs?ticket=${await ticket()}`, { key: null })).status).toBe(401);
    const ws = { upgrade: "websocket" };
    expect((await api(`/v1/chats/ls2/jobs?ticket=${await ticket()}`, { key: null, headers: ws })).status).toBe(401);
    const put = await api(`/v1/config?ticket=${await ticket()}`, {
      key: null,
      method: "PUT",
      body: toolConfig(),
      headers: ws,
    });
    expect(put.status).toBe(401);
    const del = await api(`/v1/chats/ls2?ticket=${await ticket()}`, { key: null, method: "DELETE", headers: ws });
    expect(del.status).toBe(401);
    expect((await api("/v1/chats/ls2")).status).toBe(200);
  });

  it("replays every event as it was sent live; a job's start and end with no webhook waiting write no event row", async () => {
    await configure(toolConfig({ limits: { max_result_chars: 50 } }));
    await parallel("ls5", { tool_calls: [echo(0)] });
    const live = await connect("/v1/chats/ls5/events", await ticket("ls5"));
    await parallel("ls5", { tool_calls: [echo(1), call("big", { bytes: 200 }), call("fail404")] });
    await until(live, "chat.idle");
    live.close();
    const sent = live.messages.filter((m) => m.type !== "job.progress");
    expect(sent.map((m) => m.type).filter((t) => t.startsWith("job."))).toHaveLength(6);
    const cut = sent.find((m) => m.type === "job.finished" && m.data.tool_name === "big");
    expect(cut.data).toMatchObject({ result_truncated: true });
    expect(cut.data.result).toHaveLength(50);

    // Read back later, under another max_result_chars: the same envelopes, in the same order.
    await configure(toolConfig({ limits: { max_result_chars: 10 } }));
    const replay = await connect("/v1/chats/ls5/events", await ticket("ls5"), sent[0].data.seq - 1);
    await eventually(async () => replay.messages.length >= sent.length);
    replay.close();
    expect(replay.messages.slice(0, sent.length)).toEqual(sent);

    const rows = await runInDurableObject(chatObject("ls5"), (_i, s) =>
      s.storage.sql
        .exec<{ type: string }>("SELECT type FROM events ORDER BY seq")
        .toArray()
        .map((r) => r.type),
    );
    expect(rows).toEqual(["chat.created", "batch.finished", "chat.idle", "batch.finished", "chat.idle"]);
  });

  it("tells a client whose cursor is older than what is kept", async () => {
    await configure(toolConfig());
    await parallel("ls3", { tool_calls: [echo(0)] });
    // As a purge would leave it: the first two events gone, event rows and those kept on job rows alike.
    await runInDurableObject(chatObject("ls3"), (_i, s) => {
      s.storage.sql.exec("DELETE FROM events WHERE seq <= 2");
      s.storage.sql.exec("UPDATE jobs SET started_seq = NULL WHERE started_seq <= 2");
    });
    const socket = await connect("/v1/chats/ls3/events", await ticket("ls3"), 0);
    const expired = await until(socket, "cursor.expired");
    expect(expired).toEqual({ type: "cursor.expired", oldest: 3 });
    expect(socket.messages[1].data.seq).toBe(3);
    socket.close();
  });

  it("answers ping with pong", async () => {
    await configure(toolConfig());
    await parallel("ls4", { tool_calls: [echo(0)] });
    const res = await api(`/v1/chats/ls4/events?ticket=${await ticket("ls4")}`, {
      key: null,
      headers: { upgrade: "websocket" },
    });
    const ws = res.webSocket!;
    const replies: string[] = [];
    ws.addEventListener("message", (e) => replies.push(e.data as string));
    ws.accept();
    ws.send("ping");
    await eventually(async () => replies.includes("pong"));
    ws.close(1000, "done");
  });

  it("is not a plain GET, and has a chat to stream", async () => {
    await configure(toolConfig());
    expect((await api("/v1/events")).status).toBe(426);
    expect((await api("/v1/chats/nobody-here/events", { headers: { upgrade: "websocket" } })).status).toBe(404);
  });
});

describe("the tenant stream", () => {
  it("carries every chat's events with a resumable cursor while someone listens", async () => {
    await configure(toolConfig());
    const socket = await connect("/v1/events", await ticket());
    await parallel("ts1", { tool_calls: [echo(1)] });
    await parallel("ts2", { tool_calls: [echo(2)] });
    await eventually(async () => {
      const done = socket.messages.filter((m) => m.type === "batch.finished").map((m) => m.data.chat_id);
      return done.includes("ts1") && done.includes("ts2");
    });
    const cursors = socket.messages.map((m) => m.cursor);
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(cursors.length);
    socket.close();
  });

  it("sees a chat created after it opened from its first event, every event in seq order", async () => {
    await configure(toolConfig());
    const socket = await connect("/v1/events", await ticket());
    for (const chat of ["ts4", "ts5", "ts6", "ts7"]) {
      await parallel(chat, { tool_calls: [echo(1), echo(2)] });
      const finished = await until(socket, "batch.finished");
      expect(finished.data.chat_id).toBe(chat);
      await eventually(async () => socket.messages.some((m) => m.data.chat_id === chat && m.type === "chat.idle"));
      const events = socket.messages.filter((m) => m.data.chat_id === chat && m.type !== "job.progress");
      expect(events[0].type).toBe("chat.created");
      expect(events.map((m) => m.type)).toContain("job.started");
      // Every event of the chat up to its last, none missing, in order.
      const seqs = events.map((m) => m.data.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.at(-1) }, (_, i) => i + 1));
      socket.messages.length = 0;
    }
    socket.close();
  });

  it("a dashboard that connects later still hears chats that had found nobody listening", async () => {
    await configure(toolConfig());
    await parallel("ts3", { tool_calls: [echo(1)] }); // publishes once, learns nobody listens, goes quiet
    const hint = () =>
      runInDurableObject(
        chatObject("ts3"),
        (_i, s) => s.storage.sql.exec("SELECT value FROM meta WHERE key = 'tenant_listening'").one().value,
      );
    await eventually(async () => (await hint()) === "0");
    const socket = await connect("/v1/events", await ticket());
    await eventually(async () => (await hint()) === "1");
    await parallel("ts3", { tool_calls: [echo(2)] });
    const finished = await until(socket, "batch.finished");
    expect(finished.data.chat_id).toBe("ts3");
    socket.close();
  });
});
