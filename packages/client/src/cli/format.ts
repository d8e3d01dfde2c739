/**
 * What the CLI prints for people: job tables and the live progress block of
 * `fanout watch`. Pure functions of the data and the clock, so they are tested
 * without a terminal.
 */
import { JOB_STATES } from "../job-states.js";
import type { FlowAnswer, FanoutEvent, JobSnapshot, TelemetryAnswer, ToolCallsAnswer, ToolsAnswer } from "../types.js";

const WIDTH = 60;

/** The first line of a text, cut to fit a table cell. */
export function cell(text: string, width = WIDTH): string {
  const line = text.split("\n", 1)[0]!;
  const more = line !== text || [...line].length > width;
  return more ? `${[...line].slice(0, width - 1).join("")}…` : line;
}

const seconds = (s: number) => `${s.toFixed(1)}s`;

/** A header and rows as aligned columns, two spaces apart; the last column runs free. */
export function columns(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** Why a job did not succeed, and whether running it again may help: `[http_status, retryable] `. */
const failureTag = (j: JobSnapshot) => (j.error_type ? `[${j.error_type}${j.retryable ? ", retryable" : ""}] ` : "");

/** What a pending job waits for, in words: `waits for approval`, `waits for flow search-api (user-7)`. */
export function waitText(j: JobSnapshot): string {
  switch (j.waiting_for) {
    case undefined:
      return "";
    case "tier":
      return "waits for its turn (side-effecting calls run one at a time)";
    case "subagent_slot":
      return `waits for a subagent slot${j.queue_position ? ` (#${j.queue_position} in line)` : ""}`;
    case "approval":
      return `waits for approval${j.approval_expires_at ? ` until ${j.approval_expires_at}` : ""}`;
    case "flow":
      return `waits for flow ${j.flow ? `${j.flow.rule}${j.flow.key ? ` (${j.flow.key})` : ""}` : "room"}`;
    case "budget":
      return "waits for its share of the batch's budget";
    case "spend":
      return "waits for the tenant's spending limit";
    default:
      return `waits for ${j.waiting_for}`;
  }
}

/** Jobs as aligned columns: id, tool, state, duration, then the result, the error, or what it waits for. */

export function jobTable(jobs: JobSnapshot[]): string {
  if (jobs.length === 0) return "no jobs";
  const rows = jobs.map((j) => [
    j.job_id,
    j.tool_name,
    j.state,
    seconds(j.duration_seconds),
    cell(j.error ? `${failureTag(j)}Error: ${j.error}` : (j.result ?? waitText(j))),
  ]);
  return columns(["job", "tool", "state", "time", "result"], rows);
}

/** `fanout tool-calls`: a row per call, by the id its model wrote: its job, state, and content. */
export function callTable(answer: ToolCallsAnswer): string {
  const rows = answer.results.map((r) => [
    r.tool_call_id,
    r.name,
    r.job_id ?? "-",
    r.state,
    cell(r.content ?? (JOB_STATES[r.state]?.active ? "(results come in batch.finished)" : "")),
  ]);
  return columns(["call", "tool", "job", "state", "content"], rows);
}

/** `fanout tools`: each tool's name and the first line of its description, then the prompts there are. */
export function toolTable(answer: ToolsAnswer): string {
  const rows = answer.tools.map((t) => [t.function.name, cell(t.function.description, 70)]);
  const width = Math.max(4, ...rows.map((r) => r[0]!.length));
  const lines = [["tool", "description"], ...rows].map(([name, description]) =>
    `${name!.padEnd(width)}  ${description}`.trimEnd(),
  );
  const prompts = Object.keys(answer.prompts);
  if (prompts.length) lines.push("", `prompts: ${prompts.join(", ")} (--json prints them)`);
  return lines.join("\n");
}

/** `fanout flow`: a line per rule (running, queued, rate headroom), its busiest keys under it. */
export function flowTable(answer: FlowAnswer): string {
  if (answer.rules.length === 0) return "no flow rules (set `flow` in the config: docs/api.md#flow-control)";
  return answer.rules
    .flatMap((r) => [
      `${r.name}  running ${r.running}  queued ${r.queued}${r.rate ? `  rate ${r.rate.available} of ${r.rate.limit} per ${r.rate.period_seconds} s available` : ""}`,
      ...r.keys.map((k) => `  ${k.key === "" ? '""' : cell(k.key, 40)}  running ${k.running}  queued ${k.queued}`),
    ])
    .join("\n");
}

/** What the tenant's span exports came to, in one line, and the latest failure on the next. */
export function telemetryLine(answer: TelemetryAnswer): string {
  const last = answer.last_export_at ? `  last export ${answer.last_export_at}` : "";
  return [
    `exported ${answer.exported}  dropped ${answer.dropped}${last}`,
    ...(answer.last_error ? [`last error: ${answer.last_error}`] : []),
  ].join("\n");
}

/** A running job as `fanout watch` shows it. */
export interface RunningJob {
  chat_id: string;
  job_id: string;
  tool_name: string;
  started_at: number;
}

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** The progress block: one line per running job, with a spinner and the time it has run. */
export function progressLines(running: RunningJob[], now: number): string[] {
  const frame = SPINNER[Math.floor(now / 100) % SPINNER.length];
  return running.map(
    (j) => `${frame} ${j.chat_id}  ${j.job_id}  ${j.tool_name}  ${seconds(Math.max(0, now - j.started_at) / 1000)}`,
  );
}

/** A line for an event worth a line of its own (a job or batch ending); undefined for the rest. */
export function eventLine(event: FanoutEvent): string | undefined {
  const where = event.data.chat_id;
  if (event.type === "job.finished") {
    const mark = event.data.state === "success" ? "✓" : "✗";
    const outcome = event.data.error ? `Error: ${event.data.error}` : (event.data.result ?? "");
    return `${mark} ${where}  ${event.data.job_id}  ${event.data.tool_name}  ${event.data.state}  ${seconds(event.data.duration_seconds)}  ${cell(outcome, 40)}`;
  }
  if (event.type === "batch.finished")
    return `■ ${where}  ${event.data.batch_id}  ${event.data.results.status} (${event.data.results.jobs.length} jobs)`;
  if (event.type === "job.approval_requested")
    return `? ${where}  ${event.data.job_id}  ${event.data.tool_name}  waits for approval until ${event.data.approval_expires_at}  ${cell(JSON.stringify(event.data.tool_args), 40)}`;
  if (event.type === "job.approval_decided") {
    const { decision, by, reason } = event.data;
    const word = decision === "approve" ? "approved" : decision === "deny" ? "denied" : "expired, not made";
    const who = by ? ` by ${by}` : "";
    return `${decision === "approve" ? "✓" : "✗"} ${where}  ${event.data.job_id}  ${event.data.tool_name}  ${word}${who}${reason ? `: ${cell(reason, 40)}` : ""}`;
  }
  return undefined;
}

/** The running set after an event. */
export function track(running: RunningJob[], event: FanoutEvent): RunningJob[] {
  if (event.type === "job.started") {
    const started_at = Date.parse(event.timestamp);
    return [
      ...running.filter((j) => j.job_id !== event.data.job_id),
      { chat_id: event.data.chat_id, job_id: event.data.job_id, tool_name: event.data.tool_name, started_at },
    ];
  }
  if (event.type === "job.finished") return running.filter((j) => j.job_id !== event.data.job_id);
  return running;
}
