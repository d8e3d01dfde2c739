/**
 * Jobs as MCP tasks (docs/mcp.md#tasks): task id = job id, under the 2026-07-28 tasks extension
 * (`tasks/get`, `tasks/update`, `tasks/cancel`) and 2025-11-25's task-augmented calls
 * (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`). Nothing is stored for a task: each
 * request reads the job.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { quoteName } from "../../core/calls/names";
import { isTerminal } from "../../core/jobs/job";
import { APPROVAL_INPUT, approvalInputRequests, readDecision } from "../../core/mcp-server/approval-form";
import {
  endedCallResult,
  statusMessage,
  taskStatus,
  type McpJobView,
  type TaskStatus,
} from "../../core/mcp-server/job-view";
import { readView, waitForJob } from "./job-reads";
import type { McpSession, ModernClient } from "./session";

/** How often a client is asked to poll a task. */
export const POLL_INTERVAL_MS = 1_000;

const taskNotFound = (s: McpSession, taskId: string) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Task '${quoteName(taskId)}' not found in chat '${quoteName(s.chatId)}': it is not one of this chat's jobs, or it was purged.`,
  );

async function viewOf(s: McpSession, taskId: string, collect: boolean): Promise<McpJobView> {
  const view = await readView(s, taskId, collect);
  if (!view) throw taskNotFound(s, taskId);
  return view;
}

/**
 * Whether this client decides the job's approval itself: a 2026 tasks client, for a call under a
 * rule that asks it. The rule is found as admission found it, by the tool and the agent that made
 * the call (stored on the job), whatever agent this request names.
 */
function asksClient(client: ModernClient, view: McpJobView): boolean {
  return client.tasks && view.asks_mcp_client;
}

const retentionMs = (s: McpSession) => s.limits.retention_seconds * 1000;

// ---- 2026-07-28: the tasks extension ---------------------------------------------------

/** A task as the extension shows it, with the status and message it has now. */
function modernTaskAs(s: McpSession, view: McpJobView, status: TaskStatus, message: string | undefined) {
  return {
    taskId: view.snapshot.job_id,
    status,
    ...(message ? { statusMessage: message } : {}),
    createdAt: view.created_at,
    lastUpdatedAt: view.updated_at,
    ttlMs: retentionMs(s),
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

function modernTask(s: McpSession, client: ModernClient, view: McpJobView) {
  const status = taskStatus(view, { exchange: "2026", asksClient: asksClient(client, view) });
  return modernTaskAs(s, view, status, status === "input_required" ? "waiting for your approval" : statusMessage(view));
}

/**
 * The answer to a call whose job outlived its first second: a task to poll, `working` (a form to
 * answer comes with `tasks/get`, as `input_required`).
 */
export const createdTask = (s: McpSession, view: McpJobView) => ({
  ...modernTaskAs(s, view, "working", statusMessage(view)),
  resultType: "task" as const,
});

/** `tasks/get`: the job's state and, once it ended, the call's result. */
export async function getModernTask(s: McpSession, client: ModernClient, taskId: string) {
  const view = await viewOf(s, taskId, true);
  const task = modernTask(s, client, view);
  const detail =
    task.status === "completed"
      ? { result: { ...endedCallResult(view), resultType: "complete" } }
      : task.status === "input_required"
        ? { inputRequests: approvalInputRequests(view) }
        : {};
  return { ...task, ...detail, resultType: "complete" as const };
}

/** `tasks/update`: the client's answer to the approval form becomes the decision, made by `mcp:<its name>`. */
export async function updateModernTask(
  s: McpSession,
  client: ModernClient,
  taskId: string,
  inputResponses: Record<string, unknown>,
) {
  const view = await viewOf(s, taskId, false);
  if (!asksClient(client, view))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task '${quoteName(taskId)}' asks this client for no input: its call waits for no approval of an ask_mcp_client rule.`,
    );
  const read = readDecision(inputResponses[APPROVAL_INPUT]);
  if ("invalid" in read)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `inputResponses.${APPROVAL_INPUT}: ${read.invalid}.`);
  if (read.decision === null) return { resultType: "complete" as const }; // closed without deciding: still waiting
  const by = `mcp:${client.name ?? "client"}`.slice(0, 128);
  const answer = await s.chat().decideApproval(taskId, { decision: read.decision, reason: read.reason, by }, s.limits);
  switch (answer?.outcome) {
    case undefined:
    case "unknown":
      throw taskNotFound(s, taskId);
    case "decided":
    case "repeat": // the same answer again, a retry
      return { resultType: "complete" as const };
    case "conflict":
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task '${taskId}''s call was already ${answer.status}; a decision is taken once.`,
      );
    case "not_awaiting":
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task '${taskId}' no longer waits for an approval.`);
  }
}

/** `tasks/cancel`: cancels the job and its subtree; the acknowledgement either way once it has ended. */
export async function cancelModernTask(s: McpSession, taskId: string) {
  const answer = await s.chat().cancelJob(taskId);
  if (answer !== "cancelled") throw taskNotFound(s, taskId);
  return { resultType: "complete" as const };
}

// ---- 2025-11-25: task-augmented calls --------------------------------------------------

export function legacyTask(s: McpSession, view: McpJobView) {
  const message = statusMessage(view);
  return {
    taskId: view.snapshot.job_id,
    status: taskStatus(view, { exchange: "2025", asksClient: false }),
    ...(message ? { statusMessage: message } : {}),
    createdAt: view.created_at,
    lastUpdatedAt: view.updated_at,
    ttl: retentionMs(s),
    pollInterval: POLL_INTERVAL_MS,
  };
}

export const getLegacyTask = async (s: McpSession, taskId: string) => legacyTask(s, await viewOf(s, taskId, false));

/** `tasks/result`: the call's result once its job ended, waited for up to the tenant's longest wait. */
export async function legacyTaskResult(s: McpSession, taskId: string) {
  let view = await viewOf(s, taskId, true);
  if (!isTerminal(view.snapshot.state)) {
    await waitForJob(s, taskId, s.maxWaitSeconds * 1000);
    view = await viewOf(s, taskId, true);
  }
  if (!isTerminal(view.snapshot.state))
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `Task '${taskId}' is still ${view.snapshot.state} after ${s.maxWaitSeconds} s: ask for its result again.`,
    );
  return { ...endedCallResult(view), _meta: { "io.modelcontextprotocol/related-task": { taskId } } };
}

/** The most tasks one `tasks/list` page holds. */
const TASKS_PAGE = 50;

export async function listLegacyTasks(s: McpSession, cursor: string | undefined) {
  const page = (await s.chat().jobViews(s.limits, TASKS_PAGE, cursor ?? null)) as {
    views: McpJobView[];
    next_before: string | null;
    unknown_cursor?: true;
  } | null;
  if (!page) return { tasks: [] };
  if (page.unknown_cursor)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "The cursor is not one this endpoint gave: list again without it.",
    );
  return {
    tasks: page.views.map((v) => legacyTask(s, v)),
    ...(page.next_before ? { nextCursor: page.next_before } : {}),
  };
}

export async function cancelLegacyTask(s: McpSession, taskId: string) {
  const view = await viewOf(s, taskId, false);
  if (isTerminal(view.snapshot.state))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task '${taskId}' already ended (${view.snapshot.state}); only a working task can be cancelled.`,
    );
  await s.chat().cancelJob(taskId);
  return legacyTask(s, await viewOf(s, taskId, false));
}
