/**
 * What the hosts that run the chat's work ask of it (docs/architecture.md#where-a-call-runs),
 * delegated to by `./ChatDO`: the queue consumers' hand-offs, a runner's claims, attempts, progress,
 * outcomes and lease renewals, a child chat's report on its turn, and a Worker runner's model
 * request. Each first checks that the chat still exists: a message for a chat deleted meanwhile
 * changes nothing and tells its sender the work is no longer its.
 */
import type {
  AskAnswer,
  ClaimedAsk,
  CompleteResult,
  JobOutcome,
  RunnerCall,
  RunnerOutcome,
} from "../../src/core/jobs/messages";
import type { Progress } from "../../src/core/jobs/progress";
import type { Chat } from "./chat";
import type { LaunchAnswer } from "./jobs/dispatcher";
import { claimAsk, renewAsk } from "./subagents/model-asks";

/** The `jobs` consumer's hand-off of this chat's messages (each batch's queue copy): see `Dispatcher.takeQueued`. */
export async function takeQueued(chat: Chat, jobIds: string[]): Promise<(LaunchAnswer | "retry")[]> {
  if (!chat.store.exists()) return jobIds.map(() => "finished");
  const answers = await chat.dispatcher.takeQueued(jobIds);
  if (answers.some((a) => a !== "duplicate")) await chat.store.timers.arm();
  return answers;
}

/** A child chat's report on its subordinate turn. */
export async function completeJob(
  chat: Chat,
  jobId: string,
  lease: string,
  outcome: JobOutcome,
): Promise<CompleteResult> {
  const { store } = chat;
  if (!store.exists()) return { status: "stale" };
  const result = chat.machine.complete(jobId, lease, outcome, Date.now(), store.limits().max_stored_result_bytes);
  await store.timers.arm();
  return result;
}

/**
 * A runner's outcomes: the calls that ended while its previous report was on its way, ended here in one
 * invocation (`src/core/jobs/report-queue`).
 */
export async function runnerOutcomes(chat: Chat, reports: RunnerOutcome[]): Promise<CompleteResult[]> {
  if (!chat.store.exists()) return reports.map(() => ({ status: "stale" }));
  const results = chat.runners.reported(reports, Date.now());
  await chat.store.timers.arm();
  return results;
}

/** A `calls` consumer takes the calls its message named: claimed for it, with their targets. */
export function claimForRunner(chat: Chat, jobIds: string[]): Promise<RunnerCall[]> {
  return chat.store.exists() ? chat.dispatcher.claimForQueuedRunner(jobIds) : Promise.resolve([]);
}

/** A runner renews its calls' leases; it stops the ones answered (ended, or no longer its). */
export function renewLeases(chat: Chat, calls: { job_id: string; lease: string }[]): string[] {
  return chat.store.exists() ? chat.runners.renew(calls, Date.now()) : calls.map((c) => c.job_id);
}

/** A runner's record of a retry (see `src/core/jobs/run-call`); false tells the runner the job is over. */
export function runnerAttempt(
  chat: Chat,
  jobId: string,
  lease: string,
  next: number,
  phase: "settled" | "sending",
): boolean {
  return chat.store.exists() && chat.runners.attempt(jobId, lease, next, phase);
}

/** A runner's MCP call reported progress (kept to one a second by the runner). */
export function runnerProgress(chat: Chat, jobId: string, lease: string, progress: Progress): void {
  if (chat.store.exists()) chat.runners.progressed(jobId, lease, progress);
}

/** The dead-letter consumer: the queue gave up delivering this job. */
export async function failDispatch(chat: Chat, jobId: string): Promise<void> {
  if (!chat.store.exists()) return;
  chat.machine.failUndeliverable(jobId, Date.now());
  await chat.store.timers.arm();
}

/**
 * A Worker runner takes a child's model request (docs/architecture.md#model-requests): what to send, or null
 * when it is not the runner's to make.
 */
export async function claimModelAsk(chat: Chat, turnId: string, lease: string): Promise<ClaimedAsk | null> {
  return chat.store.readable() ? claimAsk(chat.child, turnId, lease, Date.now()) : null;
}

export function renewModelAsk(chat: Chat, turnId: string, lease: string): boolean {
  return chat.store.readable() && renewAsk(chat.child, turnId, lease, Date.now());
}

/** The model's answer, from the runner that made the request: the turn's step goes on with it. */
export function modelReplied(chat: Chat, turnId: string, lease: string, answer: AskAnswer): Promise<"taken" | "stale"> {
  return chat.store.readable() ? chat.child.replied(turnId, lease, answer) : Promise.resolve("stale");
}
