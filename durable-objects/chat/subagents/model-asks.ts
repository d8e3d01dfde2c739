/**
 * A child chat's model requests wait in Worker runners (docs/architecture.md#model-requests): the
 * chat writes the ask of its turn's step, sends it on the `calls` queue, and hears back under the
 * ask's lease: the claim, the renewals, the reply. The ask lives in the chat's meta (a child runs
 * one turn at a time, and a turn one step), and the turn's `agent` timer looks at it again when it
 * could have lapsed, so a lost message or runner only costs a second ask.
 */
import { nanoid } from "nanoid";
import type { ClaimedAsk, ModelAskMessage } from "../../../src/core/jobs/messages";
import { askCheckAt, holdsAsk, type ModelAsk } from "../../../src/core/runner/model-ask";
import type { ChatStore } from "../storage/chat-store";
import { newSpanId, traceHeaders, type JobTrace } from "../../../src/core/telemetry/trace-context";
import { modelRequestOf, NO_LLM_ERROR, stepOf, type LoopHost } from "./agent-loop";

const MODEL_ASK = "model_ask";

export class ModelAsks {
  constructor(private readonly store: ChatStore) {}

  /** The ask the turn waits on, if any. */
  current(turnId: string): ModelAsk | undefined {
    const stored = this.store.meta(MODEL_ASK);
    const ask = stored ? (JSON.parse(stored) as ModelAsk) : undefined;
    return ask?.turn_id === turnId ? ask : undefined;
  }

  /**
   * A new ask for the turn's step, under a new lease, written before its message goes: a send
   * that fails (or hangs) leaves the ask unclaimed, and the `agent` timer, set with it, sends it
   * again once that lapses.
   */
  async send(turnId: string, now: number): Promise<void> {
    // A traced turn's request gets a span of its own, kept with the ask (written anyway).
    const span = this.turnTrace() ? { span: newSpanId() } : {};
    const ask: ModelAsk = { turn_id: turnId, lease: nanoid(), sent_at: now, renewed_at: null, ...span };
    this.store.transaction(() => {
      this.#write(ask);
      this.store.timers.set("agent", turnId, askCheckAt(ask));
    });
    const message: ModelAskMessage = { ...this.store.address(), ask: { turn_id: turnId, lease: ask.lease } };
    try {
      await this.store.env().CALLS.send(message);
    } catch (e) {
      console.warn(
        "sending a model request to a runner failed; it is sent again when unclaimed",
        turnId,
        (e as Error).message,
      );
    }
  }

  /**
   * A runner takes the ask: once. A second delivery of its message, or a message of an older ask,
   * takes nothing. From now on the ask lapses when its renewals stop; the timer set for an
   * unclaimed one is left as it is (most replies come before it fires, and when it fires it moves
   * to the claimed ask's own check).
   */
  claim(turnId: string, lease: string, now: number): boolean {
    const ask = this.current(turnId);
    if (!holdsAsk(ask, turnId, lease) || ask.renewed_at !== null) return false;
    this.#write({ ...ask, renewed_at: now });
    return true;
  }

  /**
   * The claim did not lead to a request (building it failed): the queue's next delivery of the message may
   * claim it again.
   */
  unclaim(turnId: string, lease: string): void {
    const ask = this.current(turnId);
    if (holdsAsk(ask, turnId, lease)) this.#write({ ...ask, renewed_at: null });
  }

  /** The runner is still at it; false tells it the ask is no longer its (stopped, or asked again). */
  renew(turnId: string, lease: string, now: number): boolean {
    const ask = this.current(turnId);
    if (!holdsAsk(ask, turnId, lease) || ask.renewed_at === null) return false;
    this.#write({ ...ask, renewed_at: now });
    return true;
  }

  /** The runner's reply ends the ask; false when the reply is stale. */
  take(turnId: string, lease: string): boolean {
    if (!holdsAsk(this.current(turnId), turnId, lease)) return false;
    this.forget();
    return true;
  }

  /** The turn ended: whatever a runner still sends for it is stale. */
  forget(): void {
    if (this.store.meta(MODEL_ASK)) this.store.setMeta(MODEL_ASK, "");
  }

  /** The running turn's trace context (its parent job's), when its trace is kept. */
  turnTrace(): JobTrace | undefined {
    const stored = this.store.meta("trace");
    return stored ? (JSON.parse(stored) as JobTrace) : undefined;
  }

  /** `traceparent` (and `tracestate`) for the ask's request: its own span, in the turn's trace. */
  traceHeaders(turnId: string): Record<string, string> | undefined {
    const trace = this.turnTrace();
    const span = this.current(turnId)?.span;
    return trace && span ? traceHeaders(trace, span) : undefined;
  }

  #write(ask: ModelAsk): void {
    this.store.setMeta(MODEL_ASK, JSON.stringify(ask));
  }
}

type AskHost = LoopHost & { asks: ModelAsks };

/** A runner claims the ask its message names: the request to make, or null when there is none for it. */
export async function claimAsk(host: AskHost, turnId: string, lease: string, now: number): Promise<ClaimedAsk | null> {
  const turn = host.turns.get(turnId);
  if (!turn || !host.running(turnId) || !host.asks.claim(turnId, lease, now)) return null;
  let claimed: Awaited<ReturnType<typeof modelRequestOf>>;
  try {
    claimed = await modelRequestOf(host, turn);
  } catch (e) {
    host.asks.unclaim(turnId, lease); // the queue delivers the message again in a second
    throw e;
  }
  // The provider was removed while the request waited for its runner: the turn ends as it would have before asking.
  if (!claimed)
    await host.finish(turn, {
      state: "error",
      error: NO_LLM_ERROR,
      error_type: "llm_error",
      attempt: 1,
      usage: turn.usage,
    });
  // Stopped during that build: no request leaves.
  if (claimed && host.running(turnId)) {
    const trace = host.asks.traceHeaders(turnId);
    return trace ? { ...claimed, trace } : claimed;
  }
  await host.modelUnanswered(stepOf(turn));
  return null;
}

/**
 * The runner renews its ask; false tells it to stop (the turn ended or is past its deadline, or the ask went
 * to another runner).
 */
export function renewAsk(host: AskHost, turnId: string, lease: string, now: number): boolean {
  const deadline = host.turns.get(turnId)?.deadline_at ?? 0;
  return host.running(turnId) && now < deadline && host.asks.renew(turnId, lease, now);
}
