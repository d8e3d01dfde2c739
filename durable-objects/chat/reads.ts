/**
 * What the worker's GET routes and the tenant read of a chat, delegated to by `./ChatDO`. Every read
 * answers null when the chat has nothing to read (it does not exist, or it is being deleted), which
 * the worker answers as a 404; none of them writes but `jobView`'s marking of a result handed over.
 */
import { transcriptEntry, type TranscriptEntry } from "../../src/core/agents/transcript";
import { extrasText } from "../../src/core/jobs/extras";
import type { JobRecord } from "../../src/core/jobs/job";
import type { ChatInfo, ChatLimits } from "../../src/core/jobs/messages";
import { resultsPayload, type Snapshot } from "../../src/core/jobs/payloads";
import { mcpJobView, type McpJobView } from "../../src/core/mcp-server/job-view";
import type { DeliveryEntry, DeliveryStatus } from "../../src/core/webhooks/deliveries";
import type { Chat } from "./chat";
import { chatInfo } from "./storage/chat-info";
import type { ChatStore } from "./storage/chat-store";
import { recordOf, recordsPage } from "./storage/job-records";
import { batchKeeps, wholeBatch } from "./storage/rerun-batches";
import { batchRecord, batchView, type BatchRecord } from "../../src/core/events/batch-view";
import type { ChatUsage } from "./storage/usage-days";

/** `read` of the chat's storage, or null when it has none to read. */
export function readable<T>(chat: Chat, read: (store: ChatStore) => T): T | null {
  return chat.store.readable() ? read(chat.store) : null;
}

export function listJobs(chat: Chat, limits: ChatLimits): { jobs: Snapshot[] } | null {
  return readable(chat, (s) => ({
    jobs: resultsPayload(s.jobs.visible(), { now: Date.now(), maxResultChars: limits.max_result_chars }).jobs,
  }));
}

export function getJob(chat: Chat, jobId: string): { record: JobRecord | null } | null {
  return readable(chat, (s) => ({ record: recordOf(s.jobs, jobId) }));
}

/** A batch as one record (docs/api.md#batch-records); null inside once its jobs are gone (purged, or never). */
export function getBatch(chat: Chat, batchId: string, limits: ChatLimits): { record: BatchRecord | null } | null {
  return readable(chat, (s) => {
    const own = s.jobs.byBatch(batchId);
    if (own.length === 0) return { record: null };
    const view = { now: Date.now(), maxResultChars: limits.max_result_chars };
    const whole = wholeBatch(s, batchId, own);
    return { record: batchRecord(batchId, batchView(own, whole, batchKeeps(s, batchId, own), view)) };
  });
}

/**
 * A job as the MCP endpoint shows it (docs/mcp.md), null inside when the chat has no such job;
 * `collect`: the client is handed its result now, so an ended job is marked collected (the one write).
 */
export function jobView(
  chat: Chat,
  jobId: string,
  limits: ChatLimits,
  collect: boolean,
): { view: McpJobView | null } | null {
  return readable(chat, (s) => {
    const job = s.jobs.withContent(jobId);
    if (!job) return { view: null };
    const now = Date.now();
    if (collect) s.jobs.markCollected([job], now);
    return { view: mcpJobView(job, now, limits.max_result_chars) };
  });
}

/** `limit` of the chat's jobs as MCP tasks list them (newest first, without parts), and where the next page starts. */
export function jobViews(
  chat: Chat,
  limits: ChatLimits,
  limit: number,
  before: string | null,
): { views: McpJobView[]; next_before: string | null; unknown_cursor?: true } | null {
  return readable(chat, (s) => {
    if (before !== null && !s.jobs.get(before)) return { views: [], next_before: null, unknown_cursor: true };
    const rows = s.jobs.newestFirst(limit + 1, before);
    const page = rows.slice(0, limit);
    const now = Date.now();
    return {
      views: page.map((job) => mcpJobView({ ...job, content: null }, now, limits.max_result_chars)),
      next_before: rows.length > limit ? page.at(-1)!.job_id : null,
    };
  });
}

/** A page of the chat's job records, newest first; `next_before` asks for the next one. */
export function jobRecords(chat: Chat, limit: number, before: string | null): ReturnType<typeof recordsPage> | null {
  return readable(chat, (s) => recordsPage(s.jobs, limit, before));
}

export function extras(chat: Chat): { text: string | null } | null {
  return readable(chat, (s) => ({ text: extrasText(s.jobs.visible(), Date.now()) }));
}

/** A child chat's conversation as people read it, the newest `limit` messages (docs/api.md#a-subagents-transcript). */
export function transcript(chat: Chat, limit: number): { messages: TranscriptEntry[] } | null {
  return readable(chat, (s) => ({ messages: s.turns.transcript(limit).map(transcriptEntry) }));
}

/** The chat's usage and its subtree's, the last 30 days (docs/api.md#usage-and-cost). */
export function usage(chat: Chat): ChatUsage | null {
  return readable(chat, (s) => s.usage.summary(Date.now(), s.jobs.endedUsage()));
}

export function deliveries(chat: Chat, status: DeliveryStatus): { events: DeliveryEntry[] } | null {
  return readable(chat, (s) => ({ events: s.events.deliveries(status) }));
}

export function logRows(chat: Chat) {
  return readable(chat, (s) => ({ rows: s.log.all() }));
}

export function info(chat: Chat): ChatInfo | null {
  return readable(chat, chatInfo);
}

/** Whether `lease` still holds the running job `jobId` here: a child asks before it starts a turn. */
export function holdsJob(chat: Chat, jobId: string, lease: string): boolean {
  const job = readable(chat, (s) => s.jobs.get(jobId));
  return job?.state === "running" && job.lease === lease;
}
