/**
 * A tenant's spans on their way to its OTLP endpoint (docs/api.md#traces), in the Worker
 * invocations that export them, never in an object that would be billed for the wait.
 *
 * A hand-over's spans (the chat sends a batch's together) go in as few requests as possible, at most
 * `SPANS_PER_REQUEST` each. A 429, a 5xx or a network error is retried 3 times with backoff,
 * then the spans are dropped and counted; any other answer drops them at once. At most
 * `MAX_WAITING_SPANS` wait per tenant: beyond that the oldest are dropped and counted. Content
 * attributes are redacted of the tenant's secrets here, the last step before they leave. What
 * happened is reported (`ExportTally`) for `GET /v1/telemetry`, at most every 4 s per tenant and isolate.
 * Nothing here can delay, fail or change a job: a job ended before its spans were built.
 */
import { networkErrorText } from "../http/network-error";
import { redactor } from "../util/redact";
import { encodeSpans, resourceOf, type OtlpProtocol } from "./otlp";
import { CONTENT_ATTRIBUTES, cutContent, type SpanRecord } from "./spans";

export const SPANS_PER_REQUEST = 512;
export const MAX_WAITING_SPANS = 10_000;
/** Each try's limit: four tries and their backoff end within the 30 s an invocation is kept after it answered. */
export const EXPORT_ATTEMPT_TIMEOUT_MS = 4_000;
export const EXPORT_RETRY_DELAYS_MS = [1_000, 2_000, 4_000] as const;
/** A hand-over starts no try after this long: with the report, it ends within the invocation's 30 s grace. */
export const HAND_OVER_LIMIT_MS = 16_000;
/**
 * Reports to the tenant's object come at most this often from one isolate, per tenant: under the
 * 5 s an isolate's copy of the target stays fresh, so a steady stream of reports keeps it checked.
 */
export const REPORT_EVERY_MS = 4_000;

/** Where a tenant's spans go: its `telemetry.otlp`, headers opened, and every secret it stores (for redaction). */
export interface TelemetryTarget {
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  secrets: string[];
}

/** What an exporter did since its last report; `GET /v1/telemetry` shows the sums. */
export interface ExportTally {
  exported: number;
  dropped: number;
  /** The latest failure, redacted: `HTTP 503: …`, a network error, or spans dropped for room. */
  last_error?: string;
  /** When spans were last accepted by the endpoint (epoch ms). */
  last_export_at?: number;
}

export interface ExporterDeps {
  /** One export request; throws on a network error. The caller's fetch applies the egress rules. */
  post(url: string, init: RequestInit): Promise<Response>;
  sleep(ms: number): Promise<void>;
  now(): number;
  report(tally: ExportTally): Promise<void>;
}

const addTally = (a: ExportTally, b: ExportTally): ExportTally => ({
  exported: a.exported + b.exported,
  dropped: a.dropped + b.dropped,
  ...((b.last_error ?? a.last_error) !== undefined ? { last_error: b.last_error ?? a.last_error } : {}),
  ...((b.last_export_at ?? a.last_export_at) !== undefined
    ? { last_export_at: b.last_export_at ?? a.last_export_at }
    : {}),
});

/** One hand-over's spans, still to be sent; another hand-over may drop some of them for room. */
type Group = { spans: SpanRecord[] };

/**
 * One tenant's spans in this isolate. Each hand-over's spans are sent, retried and reported by
 * the invocation that brought them: a promise of one invocation is never left for another to settle
 * (workerd cancels work that waits on another request's I/O). What the groups share is the count,
 * so the bound holds per tenant across them.
 */
export class TenantSpans {
  readonly #groups: Group[] = [];
  /** What hand-overs came to since the last report. */
  #pending: ExportTally | undefined;
  #lastReportAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly tenant: string,
    private readonly deps: ExporterDeps,
  ) {}

  /** How many spans wait here (tests look). */
  get waiting(): number {
    return this.#groups.reduce((n, g) => n + g.spans.length, 0);
  }

  /**
   * Sends `spans` to `target`, at most `SPANS_PER_REQUEST` a request, and reports what became of
   * them. Never rejects.
   */
  async add(spans: readonly SpanRecord[], target: TelemetryTarget): Promise<void> {
    const group: Group = { spans: [...spans] };
    this.#groups.push(group);
    let tally: ExportTally = { exported: 0, dropped: this.#makeRoom() };
    if (tally.dropped > 0)
      tally.last_error = `${tally.dropped} spans dropped: more than ${MAX_WAITING_SPANS} were waiting to be exported`;
    // Past this, no try starts: the invocation's grace after its answer is 30 s, and a report must fit.
    const giveUpAt = this.deps.now() + HAND_OVER_LIMIT_MS;
    try {
      while (group.spans.length > 0)
        tally = addTally(tally, await this.#send(group.spans.splice(0, SPANS_PER_REQUEST), target, giveUpAt));
    } finally {
      this.#groups.splice(this.#groups.indexOf(group), 1);
    }
    await this.#report(tally);
  }

  /**
   * What this hand-over came to joins what others in the isolate came to, and goes to the tenant's
   * object at most once every `REPORT_EVERY_MS`: a subagent's model requests and a long batch's
   * jobs each hand spans over on their own, and a report each would be an object request each. The
   * invocation waits out the window itself and reports whatever is pending then, unless another one
   * took it meanwhile; it waits on its own timer and its own request only.
   */
  async #report(tally: ExportTally): Promise<void> {
    this.#pending = this.#pending ? addTally(this.#pending, tally) : tally;
    const wait = this.#lastReportAt + REPORT_EVERY_MS - this.deps.now();
    if (wait > 0) await this.deps.sleep(wait);
    const pending = this.#pending;
    if (!pending) return; // another hand-over's report took it
    this.#pending = undefined;
    this.#lastReportAt = this.deps.now();
    try {
      await this.deps.report(pending);
    } catch (e) {
      // Kept for the next report; a count is lost only with the isolate.
      this.#pending = this.#pending ? addTally(pending, this.#pending) : pending;
      console.warn("reporting exported spans failed; kept for the next report", this.tenant, (e as Error).message);
    }
  }

  /** Past `MAX_WAITING_SPANS` the oldest waiting spans go; how many went. */
  #makeRoom(): number {
    let over = this.waiting - MAX_WAITING_SPANS;
    let dropped = 0;
    for (const group of this.#groups) {
      if (over <= 0) break;
      const cut = Math.min(over, group.spans.length);
      group.spans.splice(0, cut);
      over -= cut;
      dropped += cut;
    }
    return dropped;
  }

  /** One request's spans, with its retries (none that would start past `giveUpAt`); what became of them. */
  async #send(spans: SpanRecord[], target: TelemetryTarget, giveUpAt: number): Promise<ExportTally> {
    const clean = redactor(target.secrets);
    let encoded: { body: Uint8Array; contentType: string };
    try {
      encoded = encodeSpans(
        spans.map((s) => redactContent(s, clean)),
        target.protocol,
        resourceOf(this.tenant),
      );
    } catch (e) {
      return { exported: 0, dropped: spans.length, last_error: `Encoding spans failed: ${(e as Error).message}` };
    }
    let lastError = "";
    for (let attempt = 0; ; attempt++) {
      let retryable: boolean;
      try {
        const response = await this.deps.post(target.url, {
          method: "POST",
          headers: { ...target.headers, "content-type": encoded.contentType },
          body: encoded.body,
          signal: AbortSignal.timeout(EXPORT_ATTEMPT_TIMEOUT_MS),
        });
        // The body is read so the connection is freed; a failure's, a little of it, says why.
        const body = await response.arrayBuffer().catch(() => new ArrayBuffer(0));
        if (response.ok) return { exported: spans.length, dropped: 0, last_export_at: this.deps.now() };
        const text = new TextDecoder().decode(body.slice(0, 300)).replace(/[^\x20-\x7e]/g, "");
        lastError = clean(`HTTP ${response.status}${text ? `: ${text}` : ""}`);
        retryable = response.status === 429 || response.status >= 500;
      } catch (e) {
        lastError = clean(networkErrorText(e, target.url));
        retryable = !(e instanceof Error && e.name === "EgressRefused");
      }
      const delay = EXPORT_RETRY_DELAYS_MS[attempt];
      if (!retryable || delay === undefined || this.deps.now() + delay > giveUpAt)
        return {
          exported: 0,
          dropped: spans.length,
          last_error: `Export to ${originOf(target.url)} failed: ${lastError}`,
        };
      await this.deps.sleep(delay);
    }
  }
}

/** A span's content attributes with the tenant's secrets taken out, still within the cut. */
function redactContent(span: SpanRecord, clean: (text: string) => string): SpanRecord {
  if (!CONTENT_ATTRIBUTES.some((name) => name in span.attributes)) return span;
  const attributes = { ...span.attributes };
  for (const name of CONTENT_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value === "string") attributes[name] = cutContent(clean(value));
  }
  return { ...span, attributes };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "the endpoint";
  }
}
