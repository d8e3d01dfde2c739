/**
 * Spans as an OTLP/HTTP request body (docs/api.md#traces), `http/protobuf` or `http/json`.
 *
 * Encoded by `@opentelemetry/otlp-transformer`, the serializer the OpenTelemetry JS exporters use:
 * it takes spans in the SDK's `ReadableSpan` shape and needs nothing of Node or of the SDK's
 * tracer, context or processors (which assume a process that lives on; an invocation does not).
 * Its protobuf writer is its own code, with no `protobufjs` and no code generation at run time,
 * which Workers forbids.
 */
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { SpanRecord } from "./spans";

export type OtlpProtocol = "http/protobuf" | "http/json";

/** The instrumentation scope every span names. */
export const SCOPE = { name: "fanout", version: "1.4.0" };

type HrTime = [number, number];
const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** SpanKind of `@opentelemetry/api`: INTERNAL 0, CLIENT 2 (OTLP adds one when it encodes). */
const KIND = { internal: 0, client: 2 } as const;
/** SpanStatusCode of `@opentelemetry/api`. */
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

/** The `ReadableSpan` the serializer reads, from a span record. */
function readable(span: SpanRecord, resource: Resource) {
  const context = { traceId: span.trace_id, spanId: span.span_id, traceFlags: 1 };
  return {
    name: span.name,
    kind: KIND[span.kind],
    spanContext: () => context,
    parentSpanContext: span.parent_span_id
      ? { traceId: span.trace_id, spanId: span.parent_span_id, traceFlags: 1, isRemote: true }
      : undefined,
    startTime: hrTime(span.start_ms),
    endTime: hrTime(span.end_ms),
    duration: hrTime(span.end_ms - span.start_ms),
    status: span.error === undefined ? { code: STATUS_UNSET } : { code: STATUS_ERROR, message: span.error },
    attributes: span.attributes,
    links: [],
    events: (span.events ?? []).map((e) => ({ name: e.name, time: hrTime(e.at_ms), attributes: e.attributes })),
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The resource every exported span names: the service, and the tenant whose work it is. */
export const resourceOf = (tenant: string) =>
  resourceFromAttributes({ [ATTR_SERVICE_NAME]: "fanout", "fanout.tenant": tenant });

/** One export request's body and content type. */
export function encodeSpans(
  spans: readonly SpanRecord[],
  protocol: OtlpProtocol,
  resource: Resource,
): { body: Uint8Array; contentType: string } {
  const readables = spans.map((s) => readable(s, resource));
  // The serializer's parameter is the SDK's ReadableSpan class type; these carry every field it reads.
  const input = readables as unknown as Parameters<typeof ProtobufTraceSerializer.serializeRequest>[0];
  if (protocol === "http/json") {
    const body = JsonTraceSerializer.serializeRequest(input);
    if (!body) throw new Error("the OTLP JSON serializer returned nothing");
    return { body, contentType: "application/json" };
  }
  const body = ProtobufTraceSerializer.serializeRequest(input);
  if (!body) throw new Error("the OTLP protobuf serializer returned nothing");
  return { body, contentType: "application/x-protobuf" };
}
