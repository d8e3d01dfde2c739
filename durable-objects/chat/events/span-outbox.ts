/**
 * The chat's spans on their way out (docs/architecture.md#traces). Spans are built from the rows
 * the chat writes anyway, once the change they describe has committed, and handed to a Worker
 * invocation of its own (`TraceExport`, src/edge/telemetry/trace-export.ts) that exports them: the
 * chat never waits on the tenant's endpoint, and a traced batch costs it no row and no request to
 * another object.
 *
 * When a job's span goes: a batch that ends within `HELD_FOR_BATCH_MS` of its acceptance sends all
 * of its spans together when its last job ends, the batch span with them, in one request. A job
 * that ends later than that sends its own at its end, so a long batch's spans do not wait for it.
 * The rule reads only the rows, so an instance that restarted mid-batch sends the same spans.
 * Everything that ends in one turn of the instance goes in one hand-over.
 */
import type { JobRow } from "../../../src/core/jobs/job";
import { configCheck } from "../../../src/core/objects/tenant-cache";
import { batchSpan, jobSpan, type SpanRecord } from "../../../src/core/telemetry/spans";
import { jobTraceOf } from "../../../src/core/telemetry/trace-context";
import type { ChatStore } from "../storage/chat-store";

/** A job that ends this soon after its batch was accepted sends its span with the batch's. */
export const HELD_FOR_BATCH_MS = 10_000;

const heldForBatch = (job: Pick<JobRow, "created_at" | "completed_at">) =>
  (job.completed_at ?? job.created_at) - job.created_at < HELD_FOR_BATCH_MS;

let missingExporterSaid = false;

export class SpanOutbox {
  #pending: SpanRecord[] = [];
  #handing = false;

  constructor(private readonly store: ChatStore) {}

  /**
   * A job ended (inside the transaction that ended it); `batch`: its batch's rows when that was its
   * last active job. Its spans leave once the end commits.
   */
  jobEnded(job: JobRow, batch: readonly JobRow[] | undefined): void {
    // Inside the transaction that ends the job: whatever goes wrong here must not undo that end.
    try {
      this.#jobEnded(job, batch);
    } catch (e) {
      console.error("a job's spans could not be built; they are dropped", job.job_id, e);
    }
  }

  #jobEnded(job: JobRow, batch: readonly JobRow[] | undefined): void {
    const trace = jobTraceOf(job);
    if (!trace?.x) return;
    const spans: SpanRecord[] = heldForBatch(job) ? [] : [jobSpan(job, trace)];
    if (batch) {
      for (const ended of batch) {
        const own = jobTraceOf(ended);
        if (own?.x && heldForBatch(ended)) spans.push(jobSpan(ended, own));
      }
      const span = batchSpan(batch, trace, this.store.address().chat_id);
      if (span) spans.push(span);
    }
    this.send(spans);
  }

  /** Spans built elsewhere in the chat (a model request's), once what they describe has committed. */
  send(spans: SpanRecord[]): void {
    if (spans.length === 0) return;
    this.store.afterCommit(() => {
      this.#pending.push(...spans);
      if (this.#handing) return;
      this.#handing = true;
      // After the current turn: what else ends in it goes in the same hand-over.
      this.store.ctx.waitUntil(Promise.resolve().then(() => this.#handOver()));
    });
  }

  async #handOver(): Promise<void> {
    this.#handing = false;
    const spans = this.#pending.splice(0);
    const exporter = this.store.ctx.exports?.TraceExport;
    if (spans.length === 0) return;
    if (!exporter) {
      // A build whose entry does not export `TraceExport` (a wrapper's, say) can export nothing: say so once.
      if (!missingExporterSaid)
        console.warn("spans dropped: this build's Worker entry does not export TraceExport (src/index.ts does)");
      missingExporterSaid = true;
      return;
    }
    const { tenant } = this.store.address();
    try {
      // Answered at once: the export runs in that invocation, after its answer.
      await exporter.export(tenant, spans, configCheck(tenant));
    } catch (e) {
      // Telemetry never fails the chat's work: these spans are lost, as an exporter's would be.
      console.warn("handing spans to an exporter failed; they are dropped", tenant, (e as Error).message);
    }
  }
}
