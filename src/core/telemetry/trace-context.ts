/**
 * W3C Trace Context (docs/api.md#traces): the `traceparent` and `tracestate` a request may carry,
 * the context each job keeps on its row, and the `traceparent` that goes out with its calls.
 *
 * A trace is *kept* when its spans may be exported: an incoming context whose `sampled` flag is set,
 * or a trace fanout starts for a tenant with `telemetry` and keeps by `sample_ratio`. Only a kept
 * trace is stored, shown (`trace_id`) or passed on; a child chat's work follows its parent's decision.
 */
import type { WaitReason } from "../gates/order";

/** What a request's headers said, once checked: the caller's span and its flags. */
export interface IncomingTrace {
  trace_id: string;
  /** The caller's span: the batch's span is its child. */
  span_id: string;
  sampled: boolean;
  /** Passed on as it came, when it is within the bounds W3C sets. */
  tracestate?: string;
}

/**
 * A job's trace context, as its row keeps it (`jobs.trace`, compact JSON: it is written with every
 * job of a traced batch).
 */
export interface JobTrace {
  /** Trace id, 32 hex digits. */
  t: string;
  /** The job's own span (`execute_tool …` or `invoke_agent …`). */
  s: string;
  /** Its parent: the batch's span, or in a child chat the `invoke_agent` span of the turn. */
  p: string;
  /**
   * A top-level batch's job: the batch span's own parent (the caller's span), or "" when fanout started
   * the trace. Absent in a child chat, whose batches have no span of their own.
   */
  bp?: string;
  /** `tracestate`, passed on as it came. */
  ts?: string;
  /** 1: the tenant had `telemetry` when the batch was admitted, so its spans are exported. */
  x?: 1;
  /** 1: `capture_content`. */
  c?: 1;
  /** The gates the job left, each with when (`../gates/order`): the `fanout.wait` events. */
  w?: [WaitReason, number][];
}

/** The telemetry settings a batch is admitted under (from the tenant's `telemetry`), or null without one. */
export interface TraceSettings {
  capture_content: boolean;
  sample_ratio: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
/** W3C: at most 32 list members; 512 characters is what a vendor must accept. */
const MAX_TRACESTATE_CHARS = 512;
const MAX_TRACESTATE_MEMBERS = 32;

/**
 * The caller's context, or undefined when the headers carry none or one W3C says to ignore (a
 * malformed `traceparent` is not an error: the request goes on as if it had none).
 */
export function readTraceHeaders(
  traceparent: string | undefined | null,
  tracestate: string | undefined | null,
): IncomingTrace | undefined {
  const m = traceparent ? TRACEPARENT.exec(traceparent.trim()) : null;
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string?];
  // Version ff is invalid; version 00 has exactly four fields. A later version is read by its first four.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const state = keptTracestate(tracestate);
  return {
    trace_id: traceId,
    span_id: spanId,
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
    ...(state ? { tracestate: state } : {}),
  };
}

function keptTracestate(raw: string | undefined | null): string | undefined {
  const state = raw?.trim();
  if (!state || state.length > MAX_TRACESTATE_CHARS) return undefined;
  if (state.split(",").length > MAX_TRACESTATE_MEMBERS) return undefined;
  // Header values carry no control characters; one that does is not passed on.
  return /^[\x20-\x7e]*$/.test(state) ? state : undefined;
}

const randomHex = (bytes: number) => {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
};

/** A new span id: 16 hex digits, never all zero. */
export function newSpanId(): string {
  for (;;) {
    const id = randomHex(8);
    if (id !== ZERO_SPAN) return id;
  }
}

export function newTraceId(): string {
  for (;;) {
    const id = randomHex(16);
    if (id !== ZERO_TRACE) return id;
  }
}

/**
 * The trace a top-level batch belongs to, decided once when it is admitted: the caller's when it
 * sent a sampled one; a new one kept by `sample_ratio` when the tenant has `telemetry` and the
 * caller sent none; otherwise none. `random` is for tests.
 */
export function batchTrace(
  incoming: IncomingTrace | undefined,
  settings: TraceSettings | null,
  random: () => number = Math.random,
): BatchTrace | null {
  if (incoming) {
    if (!incoming.sampled) return null;
    return {
      trace_id: incoming.trace_id,
      parent: incoming.span_id,
      batch_span: newSpanId(),
      ...(incoming.tracestate ? { tracestate: incoming.tracestate } : {}),
      export: settings !== null,
      capture: settings?.capture_content === true,
    };
  }
  if (!settings || !(random() < settings.sample_ratio)) return null;
  return {
    trace_id: newTraceId(),
    parent: "",
    batch_span: newSpanId(),
    export: true,
    capture: settings.capture_content,
  };
}

/** A top-level batch's trace: what each of its jobs' `JobTrace` is made from. */
export interface BatchTrace {
  trace_id: string;
  /** The caller's span, or "" when fanout started the trace. */
  parent: string;
  batch_span: string;
  tracestate?: string;
  export: boolean;
  capture: boolean;
}

/**
 * A top-level job's context, with a span of its own. Without export, only what passing it on needs
 * (no span is ever built from it).
 */
export function jobTraceInBatch(batch: BatchTrace): JobTrace {
  const own = { t: batch.trace_id, s: newSpanId(), ...(batch.tracestate ? { ts: batch.tracestate } : {}) };
  if (!batch.export) return { ...own, p: "" };
  return { ...own, p: batch.batch_span, bp: batch.parent, x: 1, ...(batch.capture ? { c: 1 as const } : {}) };
}

/**
 * A job a child chat's turn started: a child of the turn's `invoke_agent` span (the parent job's own
 * span), exported and captured as the parent's is.
 */
export function jobTraceUnder(turn: JobTrace): JobTrace {
  const own = { t: turn.t, s: newSpanId(), ...(turn.ts ? { ts: turn.ts } : {}) };
  if (!turn.x) return { ...own, p: "" };
  return { ...own, p: turn.s, x: 1, ...(turn.c ? { c: 1 as const } : {}) };
}

/**
 * A job's stored context, or null for a job of an untraced batch (or a row from before traces). A
 * value that does not read as one counts as none: telemetry never breaks a read of the job.
 */
export function jobTraceOf(job: { trace?: string | null }): JobTrace | null {
  if (!job.trace) return null;
  try {
    const trace = JSON.parse(job.trace) as JobTrace;
    return typeof trace?.t === "string" && typeof trace.s === "string" ? trace : null;
  } catch {
    return null;
  }
}

/** `traceparent` for a request made under span `spanId` of trace `t`: sampled, since only kept traces go out. */
export const traceparent = (t: string, spanId: string) => `00-${t}-${spanId}-01`;

/** The headers a call made under `trace`'s span carries (`spanId`: a span of its own, e.g. a model request's). */
export function traceHeaders(trace: Pick<JobTrace, "t" | "s" | "ts">, spanId = trace.s): Record<string, string> {
  return { traceparent: traceparent(trace.t, spanId), ...(trace.ts ? { tracestate: trace.ts } : {}) };
}

/** What events and records show of a kept trace: its id, beside the batch's metadata. */
export const traceIdOf = (job: { trace?: string | null }) => {
  const trace = jobTraceOf(job);
  return trace ? { trace_id: trace.t } : {};
};
