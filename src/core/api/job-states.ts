/**
 * A job's words on the wire: its states and what a batch's answer says. Why a pending one waits
 * (`waiting_for`) is the list of gates, in `src/core/gates/order.ts`.
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

export const isTerminal = (state: string): state is TerminalState =>
  (TERMINAL_STATES as readonly string[]).includes(state);

/** The active states as an SQL list, `'pending', 'running'`. */
export const ACTIVE_STATES_SQL = ACTIVE_STATES.map((s) => `'${s}'`).join(", ");

/**
 * What a results payload says of its batch (docs/api.md#payloads): the job states it can share a
 * word with, and `partial` (some succeeded) and `waiting` (the wait ended first).
 */
export const BATCH_STATUSES = ["success", "partial", "error", "cancelled", "running", "waiting"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
