/**
 * Who a child's calls come from and how a step's calls become a batch of the child's own chat: the
 * child's identity and task rules, read off its meta, and the metadata, approval rules and budget
 * its batches inherit from the batch that started its turn. Apart from the turn's driving
 * (`./child-turns`) so the rules a child's calls are admitted under read in one place.
 */
import { orderedRules } from "../../../src/core/agents/permission";
import { profile as profileOf } from "../../../src/core/agents/profiles";
import type { TenantConfig } from "../../../src/core/config/schema";
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import type { Caller, ChatLimits } from "../../../src/core/jobs/messages";
import { newJobRows } from "../jobs/admission";
import { insertBatch } from "../jobs/batch-rows";
import type { ChatStore } from "../storage/chat-store";
import type { NewJob } from "../storage/job-columns";
import { readLimits, readMeta } from "../storage/schema";
import type { TreeReservation } from "../storage/tree-slots";
import type { Turn } from "../storage/turns";
import type { ChildIdentity } from "./step-calls";
import type { TreeCap } from "./tree-cap";
import type { JobTrace } from "../../../src/core/telemetry/trace-context";

/** Who the child is, as its parent's spawn set it up: its level, its profile, the tools it may use. */
export function childIdentity(sql: SqlStorage): ChildIdentity {
  const tools = JSON.parse(readMeta(sql, "tools") ?? "null") as string[] | null;
  return {
    level: Number(readMeta(sql, "level") ?? 0),
    profile: readMeta(sql, "profile") ?? "default",
    ...(tools ? { tools } : {}),
  };
}

/** The calling agent inside a child: its own profile and that profile's task rules. */
export function callerOf(config: TenantConfig, agent: string): Caller {
  return { agent, task_rules: orderedRules(profileOf(config, agent).permission?.task) };
}

export function chatLimits(sql: SqlStorage): ChatLimits {
  return readLimits(sql)!;
}

/** A step's admitted calls: the rows written, the ids to start, and what the loop reads back. */
type AdmittedStep = {
  jobs: readonly NewJob[];
  started: string[];
  jobIds: Map<number, string>;
  errors: Map<number, string>;
};

/**
 * Admits one model message's calls as a tiered batch of the child's chat, inside the caller's
 * transaction, in call order: a call refused by a cap, a permission or the depth gets its own
 * error and the others still run.
 */
export function admitStepCalls(
  store: ChatStore,
  treeCap: TreeCap,
  turn: Turn,
  specs: JobSpec[],
  now: number,
  config: TenantConfig,
  tree: TreeReservation,
): AdmittedStep {
  const caller = callerOf(config, childIdentity(store.sql).profile);
  const { admitted, plans, refusals, queued } = treeCap.admitTiered(
    store.address().chat_id,
    specs,
    chatLimits(store.sql),
    caller,
    tree,
    now,
  );
  const chat_id = readMeta(store.sql, "chat_id")!;
  // A subordinate's jobs carry the metadata of the batch that started it (the running turn's).
  const metadata = readMeta(store.sql, "metadata") || null;
  // A subordinate's calls count against the budget of the batch that started it.
  const budget = readMeta(store.sql, "budget");
  const rules = {
    agent: caller.agent,
    spend: chatLimits(store.sql).spend !== undefined,
    flow: config.flow,
    approvals: config.approvals,
    ...(budget ? { budget: { inherited: budget } } : {}),
  };
  // Its calls' spans are children of the turn's (the parent job's `invoke_agent` span).
  const turnTrace = readMeta(store.sql, "trace");
  const batch = newJobRows(admitted, now, {
    chat_id,
    tiered: true,
    deadlineCap: turn.deadline_at,
    plans,
    queued,
    metadata,
    ...rules,
    nested: true,
    ...(turnTrace ? { trace: { turn: JSON.parse(turnTrace) as JobTrace } } : {}),
  });
  const started = insertBatch(store, batch, plans, now);
  const errors = new Map([...refusals].map(([index, e]) => [index, e.message]));
  return { jobs: batch.jobs, started, jobIds: new Map(batch.jobs.map((j) => [j.idx, j.job_id])), errors };
}
