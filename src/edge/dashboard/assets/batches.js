// A chat's jobs as batches, each with its timeline (docs/api.md#dashboard). Pure: it reads job
// records as `GET /v1/chats/{chat}/jobs/{job}` returns them and touches no DOM, so the same file
// runs in the page and in the tests. Served as is, beside dashboard.js.

import { JOB_STATES } from "/job-states.js";

const at = (iso) => (iso ? Date.parse(iso) : null);
/** Not ended yet (a state this page does not know counts as ended). */
export const isActive = (job) => JOB_STATES[job.state]?.active === true;

/** What a wait was for, as a batch's header and a bar's label say it: `approval`, `flow room`, … */
const WAITED_FOR = {
  tier: "their turn",
  subagent_slot: "a subagent slot",
  approval: "approval",
  flow: "flow room",
  budget: "budget",
  spend: "the spending limit",
};
export const waitedFor = (reason) => WAITED_FOR[reason] ?? reason ?? "a start";

/**
 * A job's waits before it started, as times: each gate it left or is at (its record's `waited`), then
 * any gap before its claim (`reason` null: handed to a runner). A job still waiting reaches `now`; one
 * that ended without starting, its end. Empty for a job that started at once.
 */
export function waitSegments(job, now = Date.now()) {
  const end = at(job.started_at) ?? at(job.completed_at) ?? now;
  const segments = (job.waited ?? []).map((w) => ({ reason: w.for, from: at(w.from), to: at(w.to) ?? end }));
  // A record from before `waited`: what a pending job waits for now is all that is known.
  if (!job.waited && job.state === "pending" && job.waiting_for)
    segments.push({ reason: job.waiting_for, from: at(job.created_at), to: end });
  const last = segments.at(-1)?.to ?? at(job.created_at);
  if (end - last > 0) segments.push({ reason: null, from: last, to: end });
  return segments;
}

/** Why a pending job has not started, in words (its record's `waiting_for` and `flow`), or null. */
export function waitingText(job) {
  if (job.state !== "pending" || !job.waiting_for) return null;
  if (job.waiting_for === "tier") return "waiting for its turn";
  if (job.waiting_for === "subagent_slot") return "waiting for a subagent slot";
  if (job.waiting_for === "flow")
    return `waiting for flow slot: ${job.flow?.rule ?? "?"}${job.flow?.key ? ` (${job.flow.key})` : ""}`;
  return `waiting for ${job.waiting_for}`;
}

/**
 * Why an ended job did not succeed, and whether running it again is safe (docs/api.md#why-a-job-failed);
 * null for a job that succeeded or has not ended.
 */
export function failureText(job) {
  if (!job.error_type) return null;
  return `${job.error_type} · ${job.retryable ? "safe to run again" : "not to be run again as it is"}`;
}

/**
 * What the batch's "Rerun failed" button offers (docs/api.md#rerun): none while it runs or when every job
 * succeeded; else how many jobs a rerun runs by default (those that did not succeed and are safe to run
 * again), and how many failed in all. A side effect whose outcome is unknown is named by hand, not here.
 */
export function rerunOffer(batch) {
  if (batch.running) return null;
  const failed = batch.jobs.filter((j) => j.error_type).length;
  if (failed === 0) return null;
  return { safe: batch.jobs.filter((j) => j.error_type && j.retryable === true).length, failed };
}

/** From its claim to its end (or to `now` while it runs); a job never claimed took no time. */
export function runMs(job, now) {
  const started = at(job.started_at);
  if (started === null) return 0;
  return Math.max(0, (at(job.completed_at) ?? now) - started);
}

/**
 * The batches these jobs belong to, newest first, each with its jobs in call order, its wall time
 * (accepted → last job ended, or now) and the sum of its jobs' run times: their ratio is how much
 * faster the batch was than the same calls one after another.
 */
export function groupBatches(jobs, now = Date.now()) {
  const byBatch = new Map();
  for (const job of jobs) {
    const list = byBatch.get(job.batch_id);
    if (list) list.push(job);
    else byBatch.set(job.batch_id, [job]);
  }
  const batches = [...byBatch].map(([batchId, list]) =>
    summarize(
      batchId,
      list.sort((a, b) => a.index - b.index),
      now,
    ),
  );
  return batches.sort((a, b) => b.acceptedAt - a.acceptedAt || (a.batchId < b.batchId ? 1 : -1));
}

function summarize(batchId, jobs, now) {
  const acceptedAt = Math.min(...jobs.map((j) => at(j.created_at)));
  const running = jobs.some(isActive);
  const endedAt = running ? null : Math.max(...jobs.map((j) => at(j.completed_at) ?? at(j.created_at)));
  const wallMs = Math.max(0, (endedAt ?? now) - acceptedAt);
  const sumMs = jobs.reduce((sum, j) => sum + runMs(j, now), 0);
  return {
    batchId,
    jobs,
    acceptedAt,
    endedAt,
    running,
    wallMs,
    sumMs,
    states: countStates(jobs),
    longestWait: longestWait(jobs, now),
  };
}

/** The longest time one of the jobs spent at one kind of gate: what a batch that waited waited for. */
function longestWait(jobs, now) {
  let longest = null;
  for (const job of jobs) {
    const byReason = new Map();
    for (const seg of waitSegments(job, now)) {
      if (seg.reason === null) continue;
      byReason.set(seg.reason, (byReason.get(seg.reason) ?? 0) + (seg.to - seg.from));
    }
    for (const [reason, ms] of byReason) if (!longest || ms > longest.ms) longest = { reason, ms };
  }
  return longest;
}

/** `[["success", 3], ["error", 1]]`, the states in their lifecycle order so batches read alike. */
function countStates(jobs) {
  const counts = new Map();
  for (const job of jobs) counts.set(job.state, (counts.get(job.state) ?? 0) + 1);
  return Object.keys(JOB_STATES)
    .filter((s) => counts.has(s))
    .map((s) => [s, counts.get(s)]);
}

/**
 * One bar per job on the batch's shared axis (accepted → ended, or now), as percentages of it:
 * `waits`, one per gate the job waited at (`reason`: approval, flow, tier…, or null for the hand-off
 * to a runner), with how long; `run` from its claim to its end. A job still running reaches the axis' end.
 */
export function timelineBars(batch, now = Date.now()) {
  const start = batch.acceptedAt;
  const span = Math.max(1, (batch.endedAt ?? now) - start);
  const pct = (t) => Math.min(100, Math.max(0, ((t - start) / span) * 100));
  return batch.jobs.map((job) => {
    const started = at(job.started_at);
    const ended = at(job.completed_at) ?? now;
    return {
      job,
      waits: waitSegments(job, now).map((w) => ({
        reason: w.reason,
        ms: w.to - w.from,
        from: pct(w.from),
        to: pct(w.to),
      })),
      run: started === null ? null : { from: pct(started), to: pct(ended) },
    };
  });
}

/** `4.2 s`, `68 s`, `3 min 5 s`: how long something waited, to the second once it is long. */
export function formatWait(ms) {
  if (ms < 10_000) return formatMs(ms);
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : formatMs(ms);
}

/** `1.2 s`, `850 ms`, `2 min 5 s`: a duration as a person reads it. */
export function formatMs(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A batch waited when a job of it spent a second or more at a gate. */
const WAITED_MS = 1000;

/**
 * What a batch's header says about it: with several jobs, its speed-up over running them one after
 * another; when its time went to waiting (no speed-up to speak of), what it waited for instead
 * (`waited 68 s for approval`).
 */
export function batchSummary(batch) {
  const states = batch.states.map(([state, n]) => `${n} ${state}`).join(", ");
  const wait = batch.longestWait;
  const waited = wait && wait.ms >= WAITED_MS && (batch.jobs.length < 2 || batch.sumMs < batch.wallMs);
  const faster =
    !waited && batch.jobs.length > 1 && batch.sumMs > 0 && batch.wallMs > 0
      ? ` · ${(batch.sumMs / batch.wallMs).toFixed(1)}× faster than one after another`
      : "";
  const why = waited ? ` · waited ${formatWait(wait.ms)} for ${waitedFor(wait.reason)}` : "";
  return `${states} · wall ${formatMs(batch.wallMs)} · sum ${formatMs(batch.sumMs)}${faster}${why}`;
}

/**
 * Who decided a call's approval, when, and why: `approved by ana at 10:02:03: looks fine`,
 * `expired at 10:12:00, not made`; null for a call with no decision.
 */
export function decisionText(job, clock) {
  const a = job.approval;
  if (!a || a.status === "pending") return null;
  if (a.status === "expired") return `expired at ${clock(Date.parse(a.decided_at ?? a.expires_at))}, not made`;
  if (!a.decided_at) return null;
  const when = clock(Date.parse(a.decided_at));
  return `${a.status}${a.by ? ` by ${a.by}` : ""} at ${when}${a.reason ? `: ${a.reason}` : ""}`;
}

/** The jobs a filter keeps: `state` and `tool` are "" for any. */
export function filterJobs(jobs, { state = "", tool = "" } = {}) {
  return jobs.filter((j) => (!state || j.state === state) && (!tool || j.tool_name === tool));
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How often a job's call was sent (`1 attempt`, `3 attempts`); null before its first. */
export const attemptsText = (job) => (job.attempt > 0 ? plural(job.attempt, "attempt") : null);

/**
 * What a job, a batch or a chat took, in words (`2 model requests · 30 tokens · 3 tool calls · $0.000150`);
 * null for nothing.
 */
export function usageText(usage) {
  if (!usage) return null;
  const tokens = (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
  const parts = [
    usage.llm_calls ? plural(usage.llm_calls, "model request") : null,
    tokens ? plural(tokens, "token") : null,
    usage.tool_calls ? plural(usage.tool_calls, "tool call") : null,
    usage.subagents ? plural(usage.subagents, "subagent") : null,
    usage.cost_usd !== undefined ? `$${usage.cost_usd.toFixed(6)}` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : null;
}

/** A batch's usage: its jobs' (each its own and its subtree's) summed. */
export function batchUsage(jobs) {
  const sum = { llm_calls: 0, prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, subagents: 0 };
  let cost;
  for (const job of jobs) {
    if (!job.usage) continue;
    for (const key of Object.keys(sum)) sum[key] += job.usage[key] ?? 0;
    if (job.usage.cost_usd !== undefined) cost = (cost ?? 0) + job.usage.cost_usd;
  }
  return cost === undefined ? sum : { ...sum, cost_usd: cost };
}
