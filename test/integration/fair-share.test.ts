/**
 * Fair share between tenants (docs/operations.md#fair-share): a tenant's live streams are capped
 * at `limits.max_streams` (the next ticket or upgrade is 429 `too_many_streams`), and requests are
 * limited per API key with the Rate Limiting binding (429 `rate_limited` with `Retry-After`).
 */
import { env, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_KEYS } from "../setup/bindings";
import { api, call, configure, eventually, json, parallel, toolConfig } from "../helpers";

afterEach(async () => {
  await reset();
});

async function ticket(chatId?: string) {
  const res = await api("/v1/ws-tickets", { body: chatId ? { chat_id: chatId } : {} });
  return { status: res.status, body: await json(res) };
}

async function open(path: string, t: string) {
  const res = await api(`${path}?ticket=${t}`, { key: null, headers: { upgrade: "websocket" } });
  if (res.status !== 101) return { status: res.status, body: await json(res) };
  res.webSocket!.accept();
  return { status: 101, ws: res.webSocket! };
}

describe("live streams per tenant", () => {
  it("refuses the ticket and the upgrade past limits.max_streams, and counts a chat's closed stream back", async () => {
    await configure(toolConfig({ limits: { max_streams: 3 } }));
    await parallel("fs1", { tool_calls: [call("echo", { x: 1 })] });
    const spare = (await ticket()).body.ticket as string;
    const tenantStreams = [
      await open("/v1/events", (await ticket()).body.ticket),
      await open("/v1/events", (await ticket()).body.ticket),
    ];
    const chatStream = await open("/v1/chats/fs1/events", (await ticket("fs1")).body.ticket);
    expect([...tenantStreams, chatStream].map((s) => s.status)).toEqual([101, 101, 101]);

    const refused = await ticket();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: "too_many_streams",
      message: "This tenant has 3 live streams open (limits.max_streams is 3); close one before opening another.",
      open: 3,
      limit: 3,
    });
    // A ticket issued before the limit was reached does not open a fourth.
    const late = await open("/v1/events", spare);
    expect(late.status).toBe(429);
    expect(late.body.error.code).toBe("too_many_streams");

    // Another tenant is not counted with this one.
    const other = await api("/v1/ws-tickets", { body: {}, key: TEST_KEYS.globex });
    expect(other.status).toBe(200);

    chatStream.ws!.close(1000, "done");
    await eventually(async () => (await ticket()).status === 200);
    for (const s of tenantStreams) s.ws!.close(1000, "done");
  });

  it("asks the chats again before refusing, so streams a restart dropped without a close do not lock the tenant out", async () => {
    await configure(toolConfig({ limits: { max_streams: 3 } }));
    // What a chat restarted by a deploy leaves behind: its streams counted, none open.
    await runInDurableObject(env.TENANT.getByName("tenant/acme"), (_i, state) => {
      state.storage.sql.exec(
        `INSERT INTO chat_streams (chat_id, sockets, updated_at) VALUES ('ghost', 50, ?)`,
        Date.now(),
      );
    });
    const issued = await ticket();
    expect(issued.status).toBe(200);
    const stream = await open("/v1/events", issued.body.ticket);
    expect(stream.status).toBe(101);
    stream.ws!.close(1000, "done");
  });

  it("refuses a chat stream opened with the key past the limit", async () => {
    await configure(toolConfig({ limits: { max_streams: 1 } }));
    await parallel("fs2", { tool_calls: [call("echo", { x: 1 })] });
    const first = await api("/v1/chats/fs2/events", { headers: { upgrade: "websocket" } });
    expect(first.status).toBe(101);
    first.webSocket!.accept();
    const second = await api("/v1/chats/fs2/events", { headers: { upgrade: "websocket" } });
    expect(second.status).toBe(429);
    expect((await json(second)).error.code).toBe("too_many_streams");
    first.webSocket!.close(1000, "done");
  });
});

describe("requests per API key", () => {
  it("answers 429 rate_limited with Retry-After past 1,000 requests in 10 s, for that key only", async () => {
    let refused: Response | undefined;
    // In rounds of 25 at once: one after another, a busy machine may not fit 1,000 in the 10 s window.
    for (let sent = 0; sent < 2000 && !refused; sent += 25) {
      const round = await Promise.all(
        Array.from({ length: 25 }, () => api("/v1/config", { key: TEST_KEYS.throttled })),
      );
      for (const res of round) {
        if (res.status === 429 && !refused) refused = res;
        else await res.arrayBuffer();
      }
    }
    expect(refused).toBeDefined();
    expect(refused!.headers.get("retry-after")).toBe("10");
    expect((await json(refused!)).error).toEqual({
      code: "rate_limited",
      message:
        "Too many requests with this API key; retry after 10 s. The operator sets the limit (docs/operations.md#fair-share).",
    });
    expect((await api("/v1/config")).status).toBe(200);
  });
});
