/**
 * One Telegram chat's agent (a Durable Object per chat). Every step of a turn
 * runs from the alarm, after the update or the webhook that caused it has been
 * written down and acknowledged: Telegram and fanout get their answer at once,
 * and a step cut short by an eviction is simply run again. A repeated step
 * cannot start its batch twice: the batch's Idempotency-Key is the model
 * message it came from. A turn's calls are handed to fanout with the
 * conversation as their `context`, so `batch.finished` brings back all the
 * turn needs, even to an object that lost its storage meanwhile.
 */
import { DurableObject } from "cloudflare:workers";
import { FanoutError, toOpenAIToolMessages, type Fanout, type FanoutEvent } from "@fanout/client";
import OpenAI from "openai";
import type { Env } from "./env";
import { fanoutClient } from "./fanout";
import { approvalMessage, decidedText, pressedDecision, type ApprovalRequest, type Decision } from "./approvals";
import { answerCallbackQuery, editMessageText, sendMessage, type ButtonPress, type TelegramApi } from "./telegram";
import { sameCalls, turnContext, type Message, type TurnContext } from "./turn";

/** Model calls per user message, so a model that keeps calling tools cannot run forever. */
const MAX_STEPS = 8;
const SYSTEM_PROMPT = "You are a helpful assistant in a Telegram chat. Answer briefly.";

type BatchFinished = Extract<FanoutEvent, { type: "batch.finished" }>;

/** W3C trace context, as the request that brought a user's message carried it. */
export interface TraceContext {
  traceparent?: string;
  tracestate?: string;
}

export class Conversation extends DurableObject<Env> {
  readonly #sql = this.ctx.storage.sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, json TEXT NOT NULL)`);
    // Messages that arrive while a batch runs wait here: a tool call's answers must come right after it.
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS inbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)`);
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), chat_id INTEGER NOT NULL, pending TEXT, due INTEGER NOT NULL DEFAULT 0, steps INTEGER NOT NULL DEFAULT 0)`,
    );
    // The trace context the user's latest message came with, passed on to fanout with the turn's batches.
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS turn_trace (id INTEGER PRIMARY KEY CHECK (id = 1), traceparent TEXT, tracestate TEXT)`,
    );
    // The approval messages sent to this chat: which fanout call each asks about, and whether it shows the decision yet.
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS approvals (job_id TEXT PRIMARY KEY, fanout_chat TEXT NOT NULL, tool_name TEXT NOT NULL, message_id INTEGER, decided INTEGER NOT NULL DEFAULT 0)`,
    );
  }

  /**
   * A user's message: written down now, answered from the alarm. `trace`: the W3C trace context the
   * update came with, if whatever sits in front of the bot traces it; the turn's batches join that trace.
   */
  async userMessage(chatId: number, text: string, trace: TraceContext = {}): Promise<void> {
    const last = this.#messages().at(-1);
    if (last?.role === "assistant" && last.tool_calls?.length) {
      this.#sql.exec(`INSERT INTO inbox (text) VALUES (?)`, text);
      return;
    }
    this.#append({ role: "user", content: text });
    this.#sql.exec(
      `INSERT OR REPLACE INTO turn_trace (id, traceparent, tracestate) VALUES (1, ?, ?)`,
      trace.traceparent ?? null,
      trace.tracestate ?? null,
    );
    this.#sql.exec(
      `INSERT INTO state (id, chat_id, due, steps) VALUES (1, ?, 1, 0) ON CONFLICT (id) DO UPDATE SET due = 1, steps = 0`,
      chatId,
    );
    await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * fanout's `batch.finished`, with the turn it was handed as its `context`. Delivery is at least once:
   * only the calls the conversation waits on move it on, so a repeated or late delivery finds nothing
   * to do. An object that lost its storage since (nothing waits on it then) takes the turn back from
   * the event.
   */
  async batchFinished(event: Pick<BatchFinished, "type" | "data">): Promise<void> {
    const turn = event.data.context as TurnContext | undefined;
    if (!turn?.messages?.length) return;
    const history = this.#messages();
    if (history.length === 0) this.#restore(turn);
    else if (!sameCalls(history.at(-1), turn.messages.at(-1))) return;
    await this.#answerCalls(toOpenAIToolMessages(event));
  }

  /** The conversation as it was handed over, and the chat it is for: what the turn goes on from. */
  #restore(turn: TurnContext): void {
    this.ctx.storage.transactionSync(() => {
      for (const message of turn.messages) this.#append(message);
      this.#sql.exec(
        `INSERT INTO state (id, chat_id, due, steps) VALUES (1, ?, 0, ?) ON CONFLICT (id) DO NOTHING`,
        turn.telegram_chat_id,
        turn.steps,
      );
    });
  }

  /**
   * fanout's `job.approval_requested`: the person is asked in the chat with Approve and Deny
   * buttons, once however often the event is delivered (the row is written before the message is sent).
   */
  async approvalRequested(chatId: number, request: ApprovalRequest): Promise<void> {
    if (this.#approval(request.job_id)) return;
    this.#sql.exec(
      `INSERT INTO approvals (job_id, fanout_chat, tool_name) VALUES (?, ?, ?)`,
      request.job_id,
      request.chat_id,
      request.tool_name,
    );
    try {
      const { text, keyboard } = approvalMessage(request);
      const messageId = await sendMessage(this.#telegram(), chatId, text, keyboard);
      this.#sql.exec(`UPDATE approvals SET message_id = ? WHERE job_id = ?`, messageId, request.job_id);
    } catch (e) {
      this.#sql.exec(`DELETE FROM approvals WHERE job_id = ?`, request.job_id); // fanout delivers it again
      throw e;
    }
  }

  /** A button under an approval message was pressed: fanout hears the decision, and the message shows it. */
  async buttonPressed(chatId: number, press: ButtonPress): Promise<void> {
    const pressed = pressedDecision(press.data);
    const approval = pressed && this.#approval(pressed.job_id);
    if (!pressed || !approval)
      return void (await answerCallbackQuery(this.#telegram(), press.id, "This button is no longer in use."));
    let note: string;
    try {
      const decide = pressed.decision === "approve" ? this.#fanout().approve : this.#fanout().deny;
      await decide.call(this.#fanout(), approval.fanout_chat, pressed.job_id, { by: press.by });
      note = pressed.decision === "approve" ? "Approved" : "Denied";
      await this.#showDecision(chatId, pressed.job_id, pressed.decision, press.by);
    } catch (e) {
      // Someone decided first (another tap, the dashboard), or the call is gone: say so, change nothing.
      if (!(e instanceof FanoutError) || (e.code !== "already_decided" && e.code !== "not_awaiting_approval")) throw e;
      note =
        e.code === "already_decided"
          ? `Already ${String(e.details.status ?? "decided")}`
          : "This call no longer waits for a decision";
    }
    await answerCallbackQuery(this.#telegram(), press.id, note);
  }

  /** fanout's `job.approval_decided` (a button here, the dashboard, or its deadline): the message shows it, once. */
  async approvalDecided(
    chatId: number,
    jobId: string,
    decision: Decision | "expired",
    by: string | null,
  ): Promise<void> {
    await this.#showDecision(chatId, jobId, decision, by);
  }

  async #showDecision(chatId: number, jobId: string, decision: Decision | "expired", by: string | null): Promise<void> {
    const approval = this.#approval(jobId);
    if (!approval || approval.decided || approval.message_id === null) return;
    await editMessageText(this.#telegram(), chatId, approval.message_id, decidedText(approval.tool_name, decision, by));
    this.#sql.exec(`UPDATE approvals SET decided = 1 WHERE job_id = ?`, jobId);
  }

  #approval(jobId: string) {
    return this.#sql
      .exec<{ fanout_chat: string; tool_name: string; message_id: number | null; decided: number }>(
        `SELECT fanout_chat, tool_name, message_id, decided FROM approvals WHERE job_id = ?`,
        jobId,
      )
      .toArray()[0];
  }

  /** The tool calls' answers, then what the user wrote meanwhile; the next step runs from the alarm. */
  async #answerCalls(answers: Message[]): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      for (const message of answers) this.#append(message);
      for (const { text } of this.#sql.exec<{ text: string }>(`SELECT text FROM inbox ORDER BY seq`).toArray())
        this.#append({ role: "user", content: text });
      this.#sql.exec(`DELETE FROM inbox`);
      this.#sql.exec(`UPDATE state SET due = 1`);
    });
    await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const state = this.#state();
    if (!state?.due) return;
    const chatId = state.chat_id;
    let last = this.#messages().at(-1);
    // A step cut short after the model answered (its batch or its reply not sent): carry on from
    // that answer instead of asking again.
    if (last?.role !== "assistant") {
      if (state.steps >= MAX_STEPS) return this.#reply(chatId, "I gave up on this one: too many tool rounds.");
      this.#sql.exec(`UPDATE state SET steps = steps + 1`);
      last = await this.#ask();
      this.#append(last);
    }
    if (last?.role === "assistant" && last.tool_calls?.length) return this.#startBatch(chatId);
    return this.#reply(chatId, typeof last?.content === "string" && last.content ? last.content : "(no answer)");
  }

  async #ask(): Promise<Message> {
    const fanout = this.#fanout();
    const { tools, prompts } = await fanout.tools();
    const llm = new OpenAI({ baseURL: this.env.LLM_BASE_URL, apiKey: this.env.LLM_API_KEY });
    const response = await llm.chat.completions.create({
      model: this.env.LLM_MODEL,
      messages: [{ role: "system", content: `${SYSTEM_PROMPT}\n\n${prompts.parallel ?? ""}` }, ...this.#messages()],
      tools,
    });
    const message = response.choices[0]?.message;
    if (!message) throw new Error("the model answered no choice");
    return {
      role: "assistant",
      content: message.content ?? null,
      ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
    };
  }

  /**
   * The last model message's calls, handed to fanout as they are (a `parallel` call among them too),
   * with the conversation as their `context`; its answer comes in `batch.finished`.
   */
  async #startBatch(chatId: number): Promise<void> {
    const messages = this.#messages();
    const steps = this.#state()?.steps ?? 0;
    const calls = (messages.at(-1) as { tool_calls?: unknown[] }).tool_calls!;
    const context = turnContext(chatId, steps, messages);
    const turnKey = `tg-${chatId}-${this.#lastSeq()}`;
    try {
      // fanout hands the Telegram chat back on the batch's events: the webhook routes by it.
      const answer = await this.#fanout().toolCalls(
        `tg-${chatId}`,
        { tool_calls: calls as never, wait: false, context },
        { idempotencyKey: turnKey, metadata: { telegram_chat_id: chatId }, ...this.#turnTrace() },
      );
      // No call could start (each refused): the answer is final, and no batch.finished will come.
      if (answer.status !== "started") return this.#answerCalls(toOpenAIToolMessages(answer));
      this.#sql.exec(`UPDATE state SET due = 0`);
    } catch (e) {
      if (!(e instanceof FanoutError) || e.retryable) throw e; // the alarm runs the step again
      // A refusal of the whole message: the model reads why and tries something else.
      const ids = (calls as { id: string }[]).map((call) => call.id);
      await this.#answerCalls(ids.map((id) => ({ role: "tool", tool_call_id: id, content: `Error: ${e.message}` })));
    }
  }

  async #reply(chatId: number, text: string): Promise<void> {
    await sendMessage(this.#telegram(), chatId, text);
    this.#sql.exec(`UPDATE state SET due = 0`);
  }

  /** The turn's trace context: fanout's spans of its batches become children of the caller's span. */
  #turnTrace(): TraceContext {
    const row = this.#sql
      .exec<{ traceparent: string | null; tracestate: string | null }>(`SELECT traceparent, tracestate FROM turn_trace`)
      .toArray()[0];
    return {
      ...(row?.traceparent ? { traceparent: row.traceparent } : {}),
      ...(row?.tracestate ? { tracestate: row.tracestate } : {}),
    };
  }

  #fanout(): Fanout {
    return fanoutClient(this.env);
  }

  #telegram(): TelegramApi {
    return { baseUrl: this.env.TELEGRAM_API_BASE_URL, token: this.env.TELEGRAM_BOT_TOKEN };
  }

  #append(message: Message): void {
    this.#sql.exec(`INSERT INTO messages (json) VALUES (?)`, JSON.stringify(message));
  }

  #messages(): Message[] {
    return this.#sql
      .exec<{ json: string }>(`SELECT json FROM messages ORDER BY seq`)
      .toArray()
      .map((r) => JSON.parse(r.json) as Message);
  }

  #lastSeq(): number {
    return this.#sql.exec<{ seq: number }>(`SELECT max(seq) AS seq FROM messages`).one().seq;
  }

  #state() {
    return this.#sql
      .exec<{ chat_id: number; due: number; steps: number }>(`SELECT chat_id, due, steps FROM state`)
      .toArray()[0];
  }
}
