/**
 * A person's approval of a call before it leaves (docs/api.md#approvals). A call under an approval
 * rule is asked about when it is admitted, whichever gate holds it first (its tier's turn, a
 * subagent slot): the person sees every call of a batch at once, while order is still kept, since
 * the call waits here only once those gates let it go. A decision is taken once, in one transaction,
 * whatever retries, restarts or rival decisions come. Scopes of its timer: `expire:<job>` (no
 * decision by the deadline: the call ends, not made) and `report` (the tenant's list of approvals
 * hears what changed; the timer runs again until it has).
 */
import {
  approvalEntry,
  approvalOf,
  approvalStatus,
  deniedError,
  expiredError,
  meetDecision,
  type ApprovalStatus,
  type DecisionRequest,
  type JobApproval,
} from "../../../src/core/approvals/approval";
import { snapshot, type Snapshot } from "../../../src/core/jobs/payloads";

export type { DecisionRequest };
import { isTerminal, type JobRow } from "../../../src/core/jobs/job";
import type { Announcer } from "../events/announcer";
import type { ChatStore } from "../storage/chat-store";
import type { NewJob } from "../storage/job-columns";
import { letGo, type Gate, type GateParts } from "./gate";

/** Calls the tenant's list hears about in one request. */
const REPORTED_PER_RUN = 50;

/**
 * Calls just admitted under an approval rule (inside the admission's transaction): each is announced and
 * given its deadline.
 */
export function askApprovals(store: ChatStore, announce: Announcer, jobs: readonly NewJob[], now: number): void {
  const asked = jobs.filter((job) => job.approval !== null);
  for (const admitted of asked) {
    const approval = approvalOf(admitted)!;
    store.timers.set("gate", `approval:expire:${admitted.job_id}`, approval.expires_at);
    announce.approvalRequested(store.jobs.get(admitted.job_id)!, approval, now);
  }
  if (asked.length) store.timers.set("gate", "approval:report", now);
}

type DecisionAnswer =
  | { outcome: "decided" | "repeat"; job: JobRow }
  | { outcome: "conflict"; job: JobRow; approval: JobApproval }
  | { outcome: "not_awaiting" | "unknown" };

/** What the decision route answers: the job's snapshot, or why the decision was not taken. */
export type ApprovalAnswer =
  | { outcome: "decided" | "repeat"; snapshot: Snapshot }
  | { outcome: "conflict"; status: ApprovalStatus }
  | { outcome: "not_awaiting" | "unknown" };

export function approvalAnswer(answer: DecisionAnswer, maxResultChars: number): ApprovalAnswer {
  if (answer.outcome === "decided" || answer.outcome === "repeat") {
    return {
      outcome: answer.outcome,
      snapshot: snapshot(answer.job, { now: Date.now(), maxResultChars, includeResult: true }),
    };
  }
  if (answer.outcome === "conflict") return { outcome: "conflict", status: approvalStatus(answer.approval) };
  return { outcome: answer.outcome };
}

/**
 * A person's decision on a call: approved, it goes on to its other gates (its deadline starts now);
 * denied, it ends `error` with the reason. The same decision again changes nothing.
 */
export async function decide(
  parts: GateParts,
  jobId: string,
  decision: DecisionRequest,
  now: number,
): Promise<DecisionAnswer> {
  const { store, machine, dispatcher } = parts;
  let start = false;
  const answer = store.transaction((): DecisionAnswer => {
    const job = store.jobs.get(jobId);
    if (!job) return { outcome: "unknown" };
    const approval = approvalOf(job);
    const met = meetDecision(approval, !isTerminal(job.state), decision.decision, now);
    if (met === "repeat") return { outcome: "repeat", job };
    if (met === "conflict") return { outcome: "conflict", job, approval: approval! };
    // Its deadline passed and the alarm has not ended it yet: the call ends here, as the alarm
    // would end it (which then finds it decided), and the decision came too late.
    if (met === "expire") return { outcome: "conflict", job, approval: expireNow(parts, job, approval!, now) };
    if (met === "not_awaiting") return { outcome: "not_awaiting" };
    const decided: JobApproval = {
      ...approval!,
      decision: decision.decision,
      by: decision.by,
      reason: decision.reason,
      decided_at: now,
    };
    store.jobs.setApproval(jobId, JSON.stringify(decided));
    store.timers.clear("gate", `approval:expire:${jobId}`);
    store.timers.set("gate", "approval:report", now);
    parts.announce.approvalDecided(store.jobs.get(jobId)!, decided, now);
    if (decision.decision === "deny") {
      machine.finish(
        job,
        { state: "error", error: deniedError(decision.by, decision.reason), error_type: "denied" },
        now,
      );
      return { outcome: "decided", job: store.jobs.get(jobId)! };
    }
    // Still held by its tier or the subagent queue: it goes on from here once they let it go.
    start = job.waiting_for === "approval" && letGo(store, { ...job, approval: JSON.stringify(decided) }, now);
    return { outcome: "decided", job: store.jobs.get(jobId)! };
  });
  await store.timers.arm();
  if (start) await dispatcher.start([jobId]);
  return answer;
}

/** No decision came by the call's approval deadline: it ends, not made. */
function expire(parts: GateParts, jobId: string, now: number): void {
  parts.store.transaction(() => {
    const job = parts.store.jobs.get(jobId);
    const approval = job && approvalOf(job);
    if (!job || !approval || approval.decision !== undefined || isTerminal(job.state) || approval.expires_at > now)
      return;
    expireNow(parts, job, approval, now);
  });
}

/**
 * Ends an undecided call past its deadline (inside the caller's transaction), whichever came first: the alarm
 * or a late decision.
 */
function expireNow(
  { store, machine, announce }: GateParts,
  job: JobRow,
  approval: JobApproval,
  now: number,
): JobApproval {
  const expired: JobApproval = { ...approval, decision: "expired", by: null, reason: null, decided_at: now };
  store.jobs.setApproval(job.job_id, JSON.stringify(expired));
  store.timers.set("gate", "approval:report", now);
  announce.approvalDecided(job, expired, now);
  machine.finish(
    job,
    { state: "error", error: expiredError(approval.timeout_seconds), error_type: "approval_expired" },
    now,
  );
  return expired;
}

/** The tenant's list of approvals hears the calls whose approval changed (or whose job ended) since it last did. */
async function report(store: ChatStore, now: number): Promise<void> {
  const changed = store.jobs.approvalsToReport(REPORTED_PER_RUN);
  if (changed.length === 0) return;
  const entries = changed.map((job) => approvalEntry(job, approvalOf(job)!, !isTerminal(job.state)));
  await store.tenant().noteApprovals(entries);
  // What changed meanwhile stays marked: the next run reports it.
  store.transaction(() => {
    for (const job of changed) store.jobs.approvalReported(job.job_id, job.approval!, job.state);
  });
  if (changed.length === REPORTED_PER_RUN) store.timers.set("gate", "approval:report", now);
}

export const approvalGate: Gate = {
  reason: "approval",
  // A call that waited for (or had) a decision ended: the tenant's list hears it.
  afterEnd: (store, ended) => {
    if (ended.approval === null) return [];
    store.jobs.markApprovalChanged(ended.job_id);
    store.timers.clear("gate", `approval:expire:${ended.job_id}`);
    return ["report"];
  },
  async open(parts, scope, now) {
    if (scope === "report") return report(parts.store, now);
    if (scope.startsWith("expire:")) expire(parts, scope.slice("expire:".length), now);
  },
};
