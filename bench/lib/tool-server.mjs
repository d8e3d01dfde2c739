/**
 * The benchmark's tool endpoint: `POST /slow` waits `tool_args.ms`, `POST /noop`
 * answers at once. It records each call's arrival and finish time by job id
 * and the most calls in flight, so latencies are measured where the work happens. `POST /v1/traces`
 * is an OTLP sink: it answers 200 and counts the requests and bytes it took.
 */
import { createServer } from "node:http";

export async function startToolServer() {
  const calls = new Map(); // job_id → { arrived, finished }
  const counts = new Map(); // job_id → calls received (a drill's "run twice" check)
  let inFlight = 0;
  let maxInFlight = 0;
  const otlp = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    if (req.url === "/v1/traces") {
      req.on("data", (c) => (otlp.bytes += c.length));
      req.on("end", () => {
        otlp.requests++;
        res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": 0 }).end();
      });
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const arrived = performance.timeOrigin + performance.now();
      let parsed = {};
      try {
        parsed = JSON.parse(body);
      } catch {}
      const id = parsed.job_id ?? `anon-${arrived}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
      const ms = req.url === "/slow" ? Number(parsed.tool_args?.ms ?? 0) : 0;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        calls.set(id, { arrived, finished: performance.timeOrigin + performance.now() });
        // With its length, as web frameworks answer JSON (Node alone would send it chunked after writeHead).
        const answer = JSON.stringify({ result: `slept ${ms}` });
        res
          .writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) })
          .end(answer);
      }, ms);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Drops every connection and stops listening (a tool server crash). */
    down: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
    up: () => new Promise((r) => server.listen(port, "127.0.0.1", r)),
    call: (jobId) => calls.get(jobId),
    count: (jobId) => counts.get(jobId) ?? 0,
    resetPeak: () => (maxInFlight = inFlight),
    peak: () => maxInFlight,
    /** What the OTLP sink took so far. */
    otlp: () => ({ ...otlp }),
    close: () => new Promise((r) => server.close(r)),
  };
}
