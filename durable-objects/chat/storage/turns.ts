/**
 * A child chat's side of subordinate jobs: one turn per parent job, and the
 * conversation that carries over between turns (a continued child remembers).
 * Each step is written before the next one starts, so an evicted child
 * resumes exactly where it stopped and never repeats a finished tool call.
 */
import type { ChatMessage } from "../../../src/core/agents/llm";
import type { JobOutcome, Usage } from "../../../src/core/jobs/messages";
import { NO_USAGE } from "../../../src/core/usage/usage";
import { cutForJson, MAX_MESSAGE_BYTES, utf8Length } from "../../../src/core/storage/row-bounds";
import { createTable, hasTable } from "./schema";

const MESSAGE_CUT_NOTE = `\n[cut: fanout keeps at most ${MAX_MESSAGE_BYTES} bytes of one message]`;

export type TurnState = "running" | "done" | "stopped";

/** One awaited tool call of the current step: its job, or the content already known (an error entry). */
export interface AwaitedCall {
  tool_call_id: string;
  job_id: string | null;
  /** A `parallel` call: every job it answers for. */
  job_ids?: string[];
  content?: string;
  /** Not a tool call: the background jobs the model must hear about before it may finish. */
  report?: true;
}

export type TurnRow = {
  parent_job_id: string;
  parent_chat_id: string;
  lease: string;
  deadline_at: number;
  state: TurnState;
  steps: number;
  awaiting: string | null;
  usage: string;
  outcome: string | null;
  created_at: number;
  ended_at: number | null;
  /** The last LLM reply or job state change of this turn (the idle rule of docs/api.md#the-agent-loop). */
  progress_at: number;
  /** Background jobs the model started whose results it has not seen yet (JSON array). */
  background: string | null;
};

export interface Turn extends Omit<TurnRow, "awaiting" | "usage" | "outcome" | "background"> {
  awaiting: AwaitedCall[] | null;
  background: string[];
  usage: Usage;
  outcome: JobOutcome | null;
}

/** A turn's usage as it begins: it is one subagent (its job's own count); the rest is added as the loop runs. */
const beginningUsage = (): Usage => ({ ...NO_USAGE, subagents: 1 });

export class Turns {
  constructor(private readonly sql: SqlStorage) {}

  get(parentJobId: string): Turn | undefined {
    if (!hasTable(this.sql, "turns")) return undefined;
    const row = this.sql.exec<TurnRow>(`SELECT * FROM turns WHERE parent_job_id = ?`, parentJobId).toArray()[0];
    if (!row) return undefined;
    return {
      ...row,
      awaiting: row.awaiting ? (JSON.parse(row.awaiting) as AwaitedCall[]) : null,
      background: row.background ? (JSON.parse(row.background) as string[]) : [],
      usage: JSON.parse(row.usage) as Usage,
      outcome: row.outcome ? (JSON.parse(row.outcome) as JobOutcome) : null,
    };
  }

  running(): Turn | undefined {
    if (!hasTable(this.sql, "turns")) return undefined;
    const row = this.sql
      .exec<{ parent_job_id: string }>(`SELECT parent_job_id FROM turns WHERE state = 'running' LIMIT 1`)
      .toArray()[0];
    return row ? this.get(row.parent_job_id) : undefined;
  }

  /** Records progress of the running turn(s). */
  progress(now: number): string[] {
    if (!hasTable(this.sql, "turns")) return [];
    const ids = this.sql
      .exec<{ parent_job_id: string }>(`SELECT parent_job_id FROM turns WHERE state = 'running'`)
      .toArray()
      .map((r) => r.parent_job_id);
    this.sql.exec(`UPDATE turns SET progress_at = ? WHERE state = 'running'`, now);
    return ids;
  }

  /** Turns waiting on one of `jobIds`. */
  awaitingAny(jobIds: string[]): string[] {
    if (!hasTable(this.sql, "turns")) return [];
    const rows = this.sql
      .exec<{ parent_job_id: string; awaiting: string | null }>(
        `SELECT parent_job_id, awaiting FROM turns WHERE state = 'running' AND awaiting IS NOT NULL`,
      )
      .toArray();
    return rows.filter((r) => jobIds.some((id) => r.awaiting!.includes(`"${id}"`))).map((r) => r.parent_job_id);
  }

  begin(t: { parent_job_id: string; parent_chat_id: string; lease: string; deadline_at: number }, now: number): void {
    createTable(this.sql, "turns");
    this.sql.exec(
      `INSERT INTO turns (parent_job_id, parent_chat_id, lease, deadline_at, state, steps, awaiting, usage,
         outcome, created_at, progress_at)
       VALUES (?, ?, ?, ?, 'running', 0, NULL, ?, NULL, ?, ?)`,
      t.parent_job_id,
      t.parent_chat_id,
      t.lease,
      t.deadline_at,
      JSON.stringify(beginningUsage()),
      now,
      now,
    );
  }

  update(
    id: string,
    patch: {
      steps?: number;
      awaiting?: AwaitedCall[] | null;
      usage?: Usage;
      state?: TurnState;
      outcome?: JobOutcome;
      background?: string[];
    },
    now = Date.now(),
  ): void {
    const turn = this.get(id);
    if (!turn) return;
    const ending = patch.state !== undefined && patch.state !== "running";
    this.sql.exec(
      `UPDATE turns
         SET steps = ?, awaiting = ?, usage = ?, state = ?, outcome = ?, ended_at = COALESCE(?, ended_at),
         background = ?
       WHERE parent_job_id = ?`,
      patch.steps ?? turn.steps,
      patch.awaiting === undefined
        ? turn.awaiting
          ? JSON.stringify(turn.awaiting)
          : null
        : patch.awaiting
          ? JSON.stringify(patch.awaiting)
          : null,
      JSON.stringify(patch.usage ?? turn.usage),
      patch.state ?? turn.state,
      patch.outcome ? JSON.stringify(patch.outcome) : turn.outcome ? JSON.stringify(turn.outcome) : null,
      ending ? now : null,
      JSON.stringify(patch.background ?? turn.background),
      id,
    );
  }

  /**
   * When this chat last had a turn end, if none is running (retention counts
   * from there); undefined while one runs or when there never was one.
   */
  idleSince(): number | undefined {
    if (!hasTable(this.sql, "turns")) return undefined;
    const row = this.sql
      .exec<{ running: number; ended: number | null }>(
        `SELECT SUM(state = 'running') AS running, MAX(ended_at) AS ended FROM turns`,
      )
      .one();
    return row.running ? undefined : (row.ended ?? undefined);
  }

  hasRunning(): boolean {
    if (!hasTable(this.sql, "turns")) return false;
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM turns WHERE state = 'running'`).one().n > 0;
  }

  /**
   * One row per message, which production caps at 2 MB: a tool message listing many results (an
   * await of 64 jobs) could pass it once JSON-escaped, so its content is cut to fit.
   */
  append(turnId: string, message: ChatMessage, now: number, usage?: Usage): void {
    // A model turn keeps what its request took, for the transcript; the model is never shown it (see `messages`).
    let body = JSON.stringify(usage ? { ...message, usage } : message);
    if (utf8Length(body) > MAX_MESSAGE_BYTES && typeof message.content === "string") {
      const beside = utf8Length(JSON.stringify({ ...message, content: "" })) + utf8Length(MESSAGE_CUT_NOTE);
      body = JSON.stringify({
        ...message,
        content: cutForJson(message.content, beside, MAX_MESSAGE_BYTES).text + MESSAGE_CUT_NOTE,
      });
    }
    createTable(this.sql, "messages");
    this.sql.exec(`INSERT INTO messages (turn, body, created_at) VALUES (?, ?, ?)`, turnId, body, now);
  }

  /**
   * What `spawn_task` with `context: "fork"` passes on (docs/api.md#child-chats): the last 20
   * messages as text, at most 4096 characters, newest kept.
   */
  forkContext(maxMessages = 20, maxChars = 4096): string {
    const lines = this.messages()
      .slice(-maxMessages)
      .flatMap((m) => (typeof m.content === "string" && m.content ? [`${m.role}: ${m.content}`] : []));
    let text = "";
    for (let i = lines.length - 1; i >= 0; i--) {
      const next = text ? `${lines[i]}\n${text}` : lines[i]!;
      if (next.length > maxChars) break;
      text = next;
    }
    return text;
  }

  /** The whole conversation of this child, every turn, oldest first, as the model reads it. */
  messages(): ChatMessage[] {
    if (!hasTable(this.sql, "messages")) return [];
    return this.sql
      .exec<{ body: string }>(`SELECT body FROM messages ORDER BY seq`)
      .toArray()
      .map((r) => {
        const { usage: _kept, ...message } = JSON.parse(r.body) as ChatMessage & { usage?: Usage };
        return message as ChatMessage;
      });
  }

  /** The newest `limit` messages as kept, with when each was written and a model turn's usage, oldest first. */
  transcript(limit: number): { message: ChatMessage & { usage?: Usage }; at: number }[] {
    if (!hasTable(this.sql, "messages")) return [];
    return this.sql
      .exec<{ body: string; created_at: number }>(
        `SELECT body, created_at FROM (SELECT seq, body, created_at FROM messages ORDER BY seq DESC LIMIT ?)
           ORDER BY seq`,
        limit,
      )
      .toArray()
      .map((r) => ({ message: JSON.parse(r.body) as ChatMessage & { usage?: Usage }, at: r.created_at }));
  }
}
