/**
 * An OTLP/HTTP traces receiver, served by the fake server (fake-servers.ts), that decodes what
 * arrives with the OpenTelemetry libraries: protobuf with the message types the OpenTelemetry JS
 * exporters generated from the official opentelemetry-proto files (`otlp-proto-decoder`, an earlier
 * `@opentelemetry/otlp-transformer` that ships them), JSON as OTLP/JSON writes it. Tests use a sink
 * name of their own, since test files run concurrently against one server.
 *
 *   POST /otlp/<sink>/v1/traces                 → 200, spans recorded
 *   POST /otlp/<sink>/status/<code>/v1/traces   → <code>, recorded as a refused request
 *   GET  /__otlp/<sink>                         → {requests: [{protocol, headers, status, spans}], spans: [...]}
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const proto = require("otlp-proto-decoder/build/src/generated/root.js") as {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(bytes: Uint8Array): unknown;
              toObject(message: unknown, options: Record<string, unknown>): OtlpRequest;
            };
          };
        };
      };
    };
  };
};
const ExportTraceServiceRequest = proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValue[];
  events?: { name: string; timeUnixNano: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
};
type OtlpRequest = {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
};

/** A span as tests read it: hex ids, millisecond times, attributes as an object. */
export interface ReceivedSpan {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  /** OTLP's: 1 internal, 2 server, 3 client. */
  kind: number;
  start_ms: number;
  end_ms: number;
  attributes: Record<string, unknown>;
  events: { name: string; at_ms: number; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

const value = (v: AnyValue): unknown => {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  return null;
};
const attributes = (list: KeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, value(kv.value)]));
const ms = (nanos: string) => Number(BigInt(nanos) / 1_000_000n);

/** Protobuf bytes fields come out of `toObject` as base64; OTLP/JSON writes ids in hex. */
const hexId = (id: string | undefined, protocol: string) =>
  !id ? null : protocol === "http/json" ? id : Buffer.from(id, "base64").toString("hex") || null;

function spansOf(request: OtlpRequest, protocol: string): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        trace_id: hexId(s.traceId, protocol)!,
        span_id: hexId(s.spanId, protocol)!,
        parent_span_id: hexId(s.parentSpanId, protocol),
        name: s.name,
        kind: s.kind,
        start_ms: ms(s.startTimeUnixNano),
        end_ms: ms(s.endTimeUnixNano),
        attributes: attributes(s.attributes),
        events: (s.events ?? []).map((e) => ({
          name: e.name,
          at_ms: ms(e.timeUnixNano),
          attributes: attributes(e.attributes),
        })),
        status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
        resource: attributes(rs.resource?.attributes),
        scope: ss.scope?.name ?? "",
      })),
    ),
  );
}

interface Received {
  protocol: string;
  headers: IncomingMessage["headers"];
  status: number;
  spans: number;
}

const readRaw = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
  });

export function otlpReceiver() {
  const sinks = new Map<string, { requests: Received[]; spans: ReceivedSpan[] }>();
  const sink = (name: string) => {
    let s = sinks.get(name);
    if (!s) sinks.set(name, (s = { requests: [], spans: [] }));
    return s;
  };

  /** Answers the request when it is one of these routes; false otherwise (it reads its own body). */
  return function handle(url: URL, req: IncomingMessage, res: ServerResponse): boolean {
    const read = /^\/__otlp\/([^/]+)$/.exec(url.pathname);
    if (read) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(sink(read[1]!)));
      return true;
    }
    const post = /^\/otlp\/([^/]+)(?:\/status\/(\d{3}))?\/v1\/traces$/.exec(url.pathname);
    if (!post) return false;
    void readRaw(req).then((raw) => {
      const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
      const protocol = type === "application/json" ? "http/json" : "http/protobuf";
      const status = post[2] ? Number(post[2]) : 200;
      let spans: ReceivedSpan[] = [];
      try {
        const request =
          protocol === "http/json"
            ? (JSON.parse(raw.toString("utf8")) as OtlpRequest)
            : ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(raw), {
                longs: String,
                bytes: String,
                defaults: false,
              });
        spans = spansOf(request, protocol);
      } catch (e) {
        res.writeHead(400, { "content-type": "text/plain" }).end(`undecodable OTLP body: ${(e as Error).message}`);
        return;
      }
      const s = sink(post[1]!);
      s.requests.push({ protocol, headers: req.headers, status, spans: spans.length });
      if (status === 200) s.spans.push(...spans);
      res
        .writeHead(status, { "content-type": protocol === "http/json" ? "application/json" : "application/x-protobuf" })
        .end(status === 200 ? (protocol === "http/json" ? "{}" : "") : `refused with ${status}`);
    });
    return true;
  };
}
