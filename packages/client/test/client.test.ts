/**
 * @fanout/client against the real service under `wrangler dev`: typed calls,
 * awaits past the per-request cap, retries that never start a job twice,
 * errors with their codes, event streams that resume after a cut, webhooks.
 */
import { createServer, type IncomingMessage } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import { FanoutError, readWebhook, type FanoutEvent, type StreamMessage } from "../src/index.js";
import { chat, client, configure, url, wait } from "./helpers.js";
import { eventually } from "../../../test/eventually";
import { cuttableProxy } from "./proxy.js";

const SECRET = "whsec_dGVzdC1jbGllbnQtd2ViaG9vay1zZWNyZXQtMTIz";

beforeEach(() => configure({ limits: { max_wait_seconds: 1 } }));

/** A fetch that counts the requests it passes on. */
function counting() {
  const seen: string[] = [];
  const fetcher = (request: Request) => (
    seen.push(`${request.method} ${new URL(request.url).pathname}`), fetch(request)
  );
  return { seen, fetcher };
}

describe("starting and awaiting jobs", () => {
  it("runs a batch and answers typed results", async () => {
    const answer = await client().parallel(chat("run"), { tool_calls: [wait(0.01), wait(0.01)], timeout: 10 });
    expect(answer.status).toBe("success");
    expect(answer.jobs.map((j) => [j.tool_name, j.state])).toEqual([
      ["wait", "success"],
      ["wait", "success"],
    ]);
  });

  it("awaitJobs asks again past the per-request cap until the jobs end", async () => {
    const id = chat("await");
    const { seen, fetcher } = counting();
    const fanout = client({ fetch: fetcher });
    const started = await fanout.parallel(id, { tool_calls: [wait(3)], wait: false });
    expect(started.status).toBe("started");
    const done = await fanout.awaitJobs(
      id,
      started.jobs.map((j) => j.job_id),
      { timeoutSeconds: 20 },
    );
    expect(done.status).toBe("success");
    // max_wait_seconds is 1: a 3 s job needs several awaits.
    expect(seen.filter((s) => s.endsWith("/parallel")).length).toBeGreaterThanOrEqual(3);
  });

  it("awaitJobs gives up at its own timeout and never cancels", async () => {
    const id = chat("patience");
    const fanout = client();
    const started = await fanout.parallel(id, { tool_calls: [wait(6)], wait: false });
    const ids = started.jobs.map((j) => j.job_id);
    const early = await fanout.awaitJobs(id, ids, { timeoutSeconds: 2 });
    expect(early.status).toBe("waiting");
    expect(early.jobs[0]).toMatchObject({ state: "running", wait_timed_out: true });
    expect((await fanout.jobs(id)).map((j) => j.state)).toEqual(["running"]);
    const cancelled = await fanout.cancel(id, ids);
    expect(cancelled.jobs[0]!.state).toBe("cancelled");
  });

  it("collect answers at once; job() has the full record", async () => {
    const id = chat("collect");
    const fanout = client();
    const started = await fanout.parallel(id, { tool_calls: [wait(0.01)], wait: false });
    const jobId = started.jobs[0]!.job_id;
    await fanout.awaitJobs(id, [jobId], { timeoutSeconds: 10 });
    expect((await fanout.collect(id, [jobId])).jobs[0]!.state).toBe("success");
    expect(await fanout.job(id, jobId)).toMatchObject({ job_id: jobId, state: "success", tool_name: "wait" });
  });

  it("parallel, toolCalls and spawn send metadata, which the records echo and the answers leave out", async () => {
    const id = chat("metadata");
    const fanout = client();
    const metadata = { telegram_chat_id: 42, user_id: "u7!" }; // "!" is never in a generated id
    const answer = await fanout.parallel(id, { tool_calls: [wait(0.01)], timeout: 10 }, { metadata });
    expect(JSON.stringify(answer)).not.toContain("u7!");
    expect((await fanout.job(id, answer.jobs[0]!.job_id)).metadata).toEqual(metadata);
    const calls = await fanout.toolCalls(
      id,
      { tool_calls: [{ id: "c1", type: "function", function: { name: "wait", arguments: '{"seconds":0.01}' } }] },
      { metadata: { turn: 2 } },
    );
    expect((await fanout.job(id, calls.results[0]!.job_id!)).metadata).toEqual({ turn: 2 });
    await expect(fanout.spawn(id, { task: "x" }, { metadata: { big: "x".repeat(3000) } })).rejects.toMatchObject({
      code: "invalid_metadata",
    });
  });

  it("passes the caller's trace context through: the batch joins its trace", async () => {
    const fanout = client();
    const id = chat("trace");
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const answer = await fanout.parallel(
      id,
      { tool_calls: [wait(0.01)], timeout: 10 },
      { traceparent: `00-${trace}-00f067aa0ba902b7-01`, tracestate: "vendor=1" },
    );
    expect(answer.trace_id).toBe(trace);
    expect((await fanout.job(id, answer.jobs[0]!.job_id)).trace_id).toBe(trace);
    // Nothing configured to export to: nothing exported, nothing dropped.
    expect(await fanout.telemetry()).toEqual({ exported: 0, dropped: 0 });
  });

  it("asks /tool-calls for every call at once with { order: 'parallel' }", async () => {
    let url = "";
    const fanout = client({ fetch: async (request) => ((url = request.url), fetch(request)) });
    const answer = await fanout.toolCalls(
      chat("order"),
      { tool_calls: [{ id: "c1", type: "function", function: { name: "wait", arguments: '{"seconds":0.01}' } }] },
      { order: "parallel" },
    );
    expect(answer.results[0]!.state).toBe("success");
    expect(new URL(url).searchParams.get("order")).toBe("parallel");
  });

  it("sends a batch's budget, and reads a chat's usage", async () => {
    const id = chat("budget");
    const fanout = client();
    const answer = await fanout.parallel(
      id,
      { tool_calls: [wait(0.01), wait(0.01)], timeout: 10 },
      { budget: { tool_calls: 1 } },
    );
    expect(answer.jobs.map((j) => j.state)).toEqual(["success", "error"]);
    expect(answer.jobs[1]!.error).toBe("Budget exhausted: tool_calls 1 of 1; the call was not made.");
    const usage = await fanout.usage(id);
    expect(usage).toMatchObject({ chat_id: id, chat: { tool_calls: 1 }, subtree: { tool_calls: 1 } });
  });
});

describe("failures", () => {
  it("throws refusals as FanoutError with the API's code and message", async () => {
    const error = await client()
      .parallel(chat("bad"), { tool_calls: [{ tool_name: "nope", tool_args: {} }] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(FanoutError);
    expect(error).toMatchObject({ status: 400, code: "unknown_tool", retryable: false });
    expect(error.message).toContain("unknown tool 'nope'");
    const auth = await client({ apiKey: "wrong" })
      .jobs("x")
      .catch((e) => e);
    expect(auth).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("repeats a job-starting request whose answer was lost, and the job starts once", async () => {
    const id = chat("lost");
    let dropped = 0;
    const fanout = client({
      fetch: async (request) => {
        const response = await fetch(request.clone());
        // The first answer is lost on the way back: fanout did the work, the client never hears.
        if (dropped++ === 0) throw new TypeError("fetch failed");
        return response;
      },
    });
    const answer = await fanout.parallel(id, { tool_calls: [wait(0.01)], wait: false });
    expect(dropped).toBe(2);
    expect(answer.status).toBe("started");
    const all = await client().jobs(id);
    expect(all.map((j) => j.job_id)).toEqual([answer.jobs[0]!.job_id]);
  });

  it("waits out a 503 with Retry-After, and gives up after `attempts`", async () => {
    let calls = 0;
    const unavailable = () =>
      new Response(JSON.stringify({ status: "error", error: { code: "unavailable", message: "try again" } }), {
        status: 503,
        headers: { "retry-after": "0", "content-type": "application/json" },
      });
    const flaky = client({ fetch: async (r) => (calls++ === 0 ? unavailable() : fetch(r)) });
    expect(await flaky.jobs(chat("none")).catch((e) => e.code)).toBe("chat_not_found");
    expect(calls).toBe(2);
    const down = client({ attempts: 2, fetch: async () => unavailable() });
    expect(await down.jobs("x").catch((e) => [e.code, e.status])).toEqual(["unavailable", 503]);
  });

  it("checks its options where they are given", () => {
    expect(() => client({ url: "" })).toThrow("`url` is required");
    expect(() => client({ attempts: 0 })).toThrow("`attempts` must be an integer >= 1");
  });
});

describe("event streams", () => {
  /** Reads until `until` holds; the iterator stays open (a `break` out of `for await` would close the stream). */
  async function take(messages: AsyncIterator<StreamMessage>, until: (seen: StreamMessage[]) => boolean) {
    const seen: StreamMessage[] = [];
    while (!until(seen)) {
      const next = await messages.next();
      if (next.done) break;
      seen.push(next.value);
    }
    return seen;
  }
  const batchesDone = (n: number) => (seen: StreamMessage[]) =>
    seen.filter((m) => m.type === "batch.finished").length >= n;

  it("gives a chat's events in order", async () => {
    const id = chat("stream");
    const fanout = client();
    await fanout.parallel(id, { tool_calls: [wait(0.01)] });
    const stream = await fanout.events(id, { after: 0 });
    const events = (await take(stream[Symbol.asyncIterator](), batchesDone(1))) as FanoutEvent[];
    stream.close();
    expect(events.map((e) => e.type)).toEqual(
      ["chat.created", "job.started", "job.finished", "batch.finished", "chat.idle"].slice(0, events.length),
    );
    expect(events.map((e) => e.data.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it("reconnects after its connection is cut and resumes without losing or repeating an event", async () => {
    const proxy = await cuttableProxy(url());
    try {
      const id = chat("resume");
      const fanout = client({ url: proxy.url });
      const stream = await fanout.events(id, { after: 0 });
      const messages = stream[Symbol.asyncIterator]();
      await fanout.parallel(id, { tool_calls: [wait(0.01)] });
      const seen = await take(messages, batchesDone(1));
      proxy.cut();
      // Events that happen while the stream is down.
      await client().parallel(id, { tool_calls: [wait(0.01)] });
      seen.push(...(await take(messages, batchesDone(1))));
      stream.close();
      const seqs = (seen as FanoutEvent[]).map((e) => e.data.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(seen.filter((m) => m.type === "batch.finished")).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it("a stream opened before its chat exists, then a batch at once: every event of it, from the chat's start", async () => {
    const id = chat("early");
    const fanout = client();
    const stream = await fanout.events(id); // the chat's stream answers 404 until its first job
    await fanout.parallel(id, { tool_calls: [wait(0.01), wait(0.01)] });
    const seen = (await take(stream[Symbol.asyncIterator](), batchesDone(1))) as FanoutEvent[];
    stream.close();
    expect(seen[0]!.type).toBe("chat.created");
    expect(seen.map((m) => m.type).sort()).toEqual([
      "batch.finished",
      "chat.created",
      "job.finished",
      "job.finished",
      "job.started",
      "job.started",
    ]);
    expect(seen.map((e) => e.data.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a stream opened on a chat, then a batch at once: every event of that batch and none from before", async () => {
    const id = chat("at-once");
    const fanout = client();
    await fanout.parallel(id, { tool_calls: [wait(0.01)] });
    for (let round = 0; round < 3; round++) {
      const stream = await fanout.events(id);
      const started = await fanout.parallel(id, { tool_calls: [wait(0.01), wait(0.01)], wait: false });
      const seen = (await take(stream[Symbol.asyncIterator](), batchesDone(1))) as FanoutEvent[];
      stream.close();
      const ours = started.jobs.map((j) => j.job_id).sort();
      const jobs = (type: string) =>
        seen
          .filter((e) => e.type === type)
          .map((e) => (e.data as { job_id: string }).job_id)
          .sort();
      expect(jobs("job.started")).toEqual(ours);
      expect(jobs("job.finished")).toEqual(ours);
      // Besides them only the batch's end, and perhaps the chat.idle of the round before.
      expect(
        seen.filter((e) => !["job.started", "job.finished", "chat.idle"].includes(e.type)).map((e) => e.type),
      ).toEqual(["batch.finished"]);
      const seqs = seen.map((e) => e.data.seq);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i)); // nothing in between was missed
    }
  });

  it("the tenant stream carries cursors", async () => {
    const fanout = client();
    const stream = await fanout.events(null);
    await fanout.parallel(chat("tenant"), { tool_calls: [wait(0.01)] });
    const seen = await take(stream[Symbol.asyncIterator](), batchesDone(1));
    stream.close();
    const cursors = seen.map((m) => (m as { cursor?: number }).cursor);
    expect(cursors.every((c) => typeof c === "number")).toBe(true);
    expect(stream.after).toBe(cursors.at(-1));
  });

  it("opening says why it cannot: a refused key, no service", async () => {
    await expect(client({ apiKey: "wrong" }).events(chat("refused"))).rejects.toMatchObject({
      status: 401,
      code: "unauthorized",
    });
    const down = await client({ url: "http://127.0.0.1:9", attempts: 2 })
      .events(null)
      .catch((e) => e);
    expect(down).toBeInstanceOf(FanoutError);
    expect(down).toMatchObject({
      code: "network_error",
      message: expect.stringContaining("fanout's event stream did not open after 2 tries"),
    });
  });

  it("an open ended by its signal first gives a stream that has ended", async () => {
    const stop = new AbortController();
    const opening = client().events(chat("aborted"), { signal: stop.signal });
    stop.abort();
    const stream = await opening;
    const next = await stream[Symbol.asyncIterator]().next();
    expect(next.done).toBe(true);
  });
});

describe("webhooks", () => {
  it("readWebhook returns the signed event and refuses a tampered one", async () => {
    const deliveries: { headers: IncomingMessage["headers"]; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => (deliveries.push({ headers: req.headers, body }), res.writeHead(200).end()));
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      await configure({ webhook: { url: hook, secret: SECRET } });
      await client().parallel(chat("hook"), { tool_calls: [wait(0.01)] });
      const delivery = await eventually(async () => deliveries.find((d) => d.body.includes('"batch.finished"')));
      const headers = delivery.headers as Record<string, string>;
      const event = await readWebhook(SECRET, headers, delivery.body);
      expect(event?.type).toBe("batch.finished");
      if (event?.type === "batch.finished") expect(event.data.results.status).toBe("success");
      expect(await readWebhook(SECRET, headers, delivery.body.replace("success", "failure"))).toBeNull();
    } finally {
      receiver.close();
    }
  });
});
