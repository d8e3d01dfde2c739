/**
 * A job's words on the wire: its states, why a pending one waits, what a batch's answer says.
 *
 * A job's states (docs/api.md#jobs-and-their-lifecycle), in lifecycle order: the one list. The API
 * schema, the SQL, the client (generated from it) and the dashboard (served from it) take them from
 * here, and a test fails when another place lists them by hand. `active`: not ended yet. `failed`:
 * ended without the call's answer. The states stay Agent Zero's.
 */
export const JOB_STATES = {
  pending: { active: true, failed: false },
  running: { active: true, failed: false },
  success: { active: false, failed: false },
  error: { active: false, failed: true },
  cancelled: { active: false, failed: true },
  timeout: { active: false, failed: true },
} as const satisfies Record<string, { active: boolean; failed: boolean }>;

export type JobState = keyof typeof JOB_STATES;
type Where<P extends { active: boolean }> = { [S in JobState]: (typeof JOB_STATES)[S] extends P ? S : never }[JobState];
export type ActiveState = Where<{ active: true }>;
export type TerminalState = Where<{ active: false }>;

const names = Object.keys(JOB_STATES) as JobState[];
export const JOB_STATE_NAMES = names as [JobState, ...JobState[]];
export const ACTIVE_STATES = names.filter((s) => JOB_STATES[s].active) as ActiveState[];
export const TERMINAL_STATES = names.filter((s) => !JOB_STATES[s].active) as TerminalState[];

export const isTerminal = (state: string): state is TerminalState => (TERMINAL_STATES as readonly string[]).includes(state);

/** The active states as an SQL list, `'pending', 'running'`. */
export const ACTIVE_STATES_SQL = ACTIVE_STATES.map((s) => `'${s}'`).join(", ");

/**
 * What a results payload says of its batch (docs/api.md#payloads): the job states it can share a
 * word with, and `partial` (some succeeded) and `waiting` (the wait ended first).
 */
export const BATCH_STATUSES = ["success", "partial", "error", "cancelled", "running", "waiting"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/**
 * Why a pending job may not start yet (`waiting_for`, docs/api.md#jobs-and-their-lifecycle); each
 * reason is one gate in the chat's `gates/` room (durable-objects/chat/gates). `clock`: whether the job's deadline starts when
 * its gate lets it go, or counts from its acceptance, the wait included. `order`: the order its
 * waiting jobs go in: their call order within their batch, or their arrival across the chat (such
 * a job gets a `wait_seq` when it is admitted).
 */
type WaitRule = { clock: "from_release" | "from_acceptance"; order: "call" | "arrival" };
const waitRules = {
  /** The sequential tier of a tiered batch waits for the calls before it (docs/api.md#tiered-execution-and-the-tool-calls-route). */
  tier: { clock: "from_release", order: "call" },
  /** A subordinate over the cap waits for a slot (`on_subagent_limit: "queue"`). */
  subagent_slot: { clock: "from_release", order: "arrival" },
  /** A call under flow rules waits for room under every one of them (docs/api.md#flow-control); its deadline counts the wait. */
  flow: { clock: "from_acceptance", order: "call" },
  /** A call under an approval rule waits for a person's decision (docs/api.md#approvals); its deadline starts at the approval. */
  approval: { clock: "from_release", order: "call" },
  /** A call of a batch with a budget: the budget is asked for it as it starts (a moment) (docs/api.md#budgets). */
  budget: { clock: "from_acceptance", order: "call" },
} satisfies Record<string, WaitRule>;
export type WaitReason = keyof typeof waitRules;
export const WAIT_REASONS: Record<WaitReason, WaitRule> = waitRules;
export const waitReasons = Object.keys(WAIT_REASONS) as [WaitReason, ...WaitReason[]];
