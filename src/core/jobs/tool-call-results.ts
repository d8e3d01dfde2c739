/**
 * The answer of `/tool-calls` (docs/api.md#tiered-execution-and-the-tool-calls-route): one entry per call in
 * the original
 * order; `content` is the result text or `Error: <message>`; calls still
 * active have their state and no content; refused calls carry their error. A
 * `parallel` call is answered like the `parallel` tool: the started payload
 * (`wait: false`) or, once its jobs are terminal, the results payload.
 */
import { isTerminal, type JobRow, type JobState } from "./job";
import type { ApiError } from "../http/errors";
import type { AdmittedToolCall, ToolCallEntry, ToolCallResult, ToolCallsAnswer } from "./tool-calls-messages";
import { failureOf } from "../api/error-types";
import { batchStatus, resultsPayload, startedPayload, type PayloadView } from "./payloads";

/**
 * A refusal's text as answered and kept for a replay: 32 of them stay well under the 1 MB a
 * stored row may take, even with every tool of a large configuration listed as available.
 */
const MAX_ERROR_CHARS = 16_000;
const bounded = (message: string) =>
  message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;

/** A call after admission: refused (by the worker or the chat), or the job ids it reports. */
export function admittedCall(
  entry: ToolCallEntry,
  refusals: Map<number, ApiError>,
  jobIds: Map<number, string>,
): AdmittedToolCall {
  const base = { tool_call_id: entry.tool_call_id, name: entry.name };
  if (entry.error) return { ...base, error: { ...entry.error, message: bounded(entry.error.message) } };
  const own = entry.spec ? [entry.spec] : (entry.parallel?.specs ?? []);
  // A parallel call's jobs are admitted together: one refusal refuses the call.
  const refused = own.map((s) => refusals.get(s.index)).find(Boolean);
  if (refused) return { ...base, error: { code: refused.code, message: bounded(refused.message), ...refused.details } };
  if (entry.spec) return { ...base, job_id: jobIds.get(entry.spec.index)! };
  const started = own.map((s) => jobIds.get(s.index)!);
  const { job_ids, wait, cancel } = entry.parallel!;
  return { ...base, parallel: { job_ids: [...job_ids, ...started], started, wait, cancel } };
}

/**
 * What a replay needs of an answered call: not its id and name, which come again with the same
 * request (however long the bot wrote them), so a record holds no copy of them.
 */
export type ReplayedCall = Omit<AdmittedToolCall, "tool_call_id" | "name">;

export const forReplay = (calls: AdmittedToolCall[]): ReplayedCall[] =>
  calls.map(({ tool_call_id: _id, name: _name, ...rest }) => rest);

export const fromReplay = (
  calls: ReplayedCall[],
  entries: Pick<ToolCallEntry, "tool_call_id" | "name">[],
): AdmittedToolCall[] =>
  calls.map((call, i) => ({ ...call, tool_call_id: entries[i]!.tool_call_id, name: entries[i]!.name }));

export function toolCallResult(call: AdmittedToolCall, rows: Map<string, JobRow>, view: PayloadView): ToolCallResult {
  const base = { tool_call_id: call.tool_call_id, name: call.name };
  if (call.error || (!call.job_id && !call.parallel)) {
    const e = call.error ?? { code: "internal", message: "The call was not admitted." };
    return { ...base, job_id: null, state: "error", content: `Error: ${e.message}`, error: e };
  }
  if (call.parallel) return parallelResult(base, call.parallel, rows, view);
  const row = rows.get(call.job_id!);
  const state: JobState = row?.state ?? "pending";
  if (!row || !isTerminal(state)) return { ...base, job_id: call.job_id!, state };
  const content = state === "success" ? (row.result ?? "") : `Error: ${row.error ?? state}`;
  return { ...base, job_id: call.job_id!, state, content, ...failureOf(row) };
}

function parallelResult(
  base: { tool_call_id: string; name: string },
  call: NonNullable<AdmittedToolCall["parallel"]>,
  rows: Map<string, JobRow>,
  view: PayloadView,
): ToolCallResult {
  const jobs = call.job_ids.flatMap((id) => rows.get(id) ?? []);
  const entry = { ...base, job_id: null, job_ids: call.job_ids };
  if (!call.wait && !call.cancel) {
    const payload = call.job_ids.length > call.started.length ? resultsPayload(jobs, view) : startedPayload(jobs, view);
    return { ...entry, state: "success", content: JSON.stringify(payload) };
  }
  const active = jobs.filter((j) => !isTerminal(j.state));
  if (active.length) return { ...entry, state: active.some((j) => j.state === "running") ? "running" : "pending" };
  return { ...entry, state: "success", content: JSON.stringify(resultsPayload(jobs, view)) };
}

/**
 * A `/tool-calls` batch's calls as `batch.finished` and the batch's record say them
 * (docs/api.md#handing-over-a-turn): in call order, each under the id its model wrote. A call that is
 * one job names it and its state (its outcome is that job in `results.jobs`, not said twice); a
 * refused or `parallel` call is its whole `/tool-calls` entry.
 */
export function batchToolCalls(
  calls: AdmittedToolCall[],
  rows: Map<string, JobRow>,
  view: PayloadView,
): ToolCallResult[] {
  return calls.map((call) => {
    if (!call.job_id) return toolCallResult(call, rows, view);
    const state: JobState = rows.get(call.job_id)?.state ?? "pending";
    return { tool_call_id: call.tool_call_id, name: call.name, job_id: call.job_id, state };
  });
}

/**
 * A rerun's calls: those of the batch it reran, each job that ran again under its new id (the rest,
 * carried over or refused, as they were), so its `batch.finished` answers the same calls.
 */
export function rerunCalls(calls: AdmittedToolCall[], rerunIds: ReadonlyMap<string, string>): AdmittedToolCall[] {
  const id = (jobId: string) => rerunIds.get(jobId) ?? jobId;
  return calls.map((call) => {
    if (call.job_id) return { ...call, job_id: id(call.job_id) };
    if (!call.parallel) return call;
    const { job_ids, started } = call.parallel;
    return { ...call, parallel: { ...call.parallel, job_ids: job_ids.map(id), started: started.map(id) } };
  });
}

/** The jobs whose results this answer delivers (and so collects): not those left running in the background. */
export function deliveredJobIds(calls: AdmittedToolCall[]): string[] {
  return calls.flatMap((c) =>
    c.job_id ? [c.job_id] : c.parallel && (c.parallel.wait || c.parallel.cancel) ? c.parallel.job_ids : [],
  );
}

/** Every job an answer reports on. */
export function reportedJobIds(calls: AdmittedToolCall[]): string[] {
  return calls.flatMap((c) => (c.job_id ? [c.job_id] : (c.parallel?.job_ids ?? [])));
}

export function toolCallsStatus(results: ToolCallResult[], waitTimedOut: boolean): ToolCallsAnswer["status"] {
  return batchStatus(
    results.map((r) => r.state),
    waitTimedOut,
  );
}
