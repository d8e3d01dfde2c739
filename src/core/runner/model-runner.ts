/**
 * A child chat's model request, made in a Worker invocation (docs/architecture.md#model-requests):
 * billed for CPU only while the model thinks, where the chat would be billed every second of it.
 * The runner claims the ask, and with it the request the chat builds from its conversation; renews
 * the ask while the provider answers; and reports the reply, or the error the request ended with,
 * under the ask's lease. A renewal the chat refuses (the turn stopped, or the ask went to another
 * runner) stops the request. A runner lost meanwhile costs a second ask, which a request without
 * side effects allows: the chat sends it again once the renewals stop.
 */
import { complete, LlmError } from "../agents/llm";
import type { AskAnswer, ClaimedAsk, ModelAskMessage } from "../jobs/messages";
import { chatName } from "../objects/names";
import { sleep } from "../util/abort";
import { ASK_RENEW_EVERY_MS } from "./model-ask";

/** Tries of a reply's report before the runner leaves the ask to lapse (and be asked again). */
const REPORT_TRIES = 5;

type Chat = ReturnType<Env["CHAT"]["getByName"]>;

/**
 * Claims the ask its message names; the request then goes on in `waitUntil`. Nothing to make (taken, stale,
 * ended) ends it here.
 */
export async function takeModelAsk(
  env: Env,
  message: ModelAskMessage,
  waitUntil: (work: Promise<unknown>) => void,
): Promise<void> {
  // Each message to the chat gets a new stub: one from before a restart of the chat stays broken.
  const chat = () => env.CHAT.getByName(chatName(message.tenant, message.chat_id));
  const claimed = await chat().claimModelAsk(message.ask.turn_id, message.ask.lease);
  if (claimed) waitUntil(askModel(chat, message.ask, claimed));
}

async function askModel(chat: () => Chat, ask: ModelAskMessage["ask"], claimed: ClaimedAsk): Promise<void> {
  const stop = new AbortController();
  const renewals = setInterval(() => {
    chat()
      .renewModelAsk(ask.turn_id, ask.lease)
      .then((mine) => mine || stop.abort(new DOMException("the ask is no longer this runner's", "AbortError")))
      // Tried again at the next renewal; a chat that hears none asks again.
      .catch((e: Error) => console.warn("renewing a model request failed; tried again", ask.turn_id, e.message));
  }, ASK_RENEW_EVERY_MS);
  let answer: AskAnswer;
  try {
    answer = await answerOf(claimed, stop.signal);
  } catch (e) {
    if (!stop.signal.aborted)
      console.error("a model request failed unexpectedly; its chat asks again", ask.turn_id, (e as Error).message);
    return;
  } finally {
    clearInterval(renewals);
  }
  if (!stop.signal.aborted) await report(chat, ask, answer);
}

/**
 * The model's reply, or the error the provider's answer ends the turn with (docs/api.md#the-agent-loop);
 * anything else throws.
 */
export async function answerOf(claimed: ClaimedAsk, signal?: AbortSignal): Promise<AskAnswer> {
  const started_at = Date.now();
  const options = { signal, ...(claimed.trace ? { headers: claimed.trace } : {}) };
  try {
    const reply = await complete(claimed.target, claimed.request, claimed.allow_private_egress, options);
    return { reply, started_at, ended_at: Date.now() };
  } catch (e) {
    if (e instanceof LlmError && !signal?.aborted) return { error: e.message, started_at, ended_at: Date.now() };
    throw e;
  }
}

/** Each try through a new stub, so a chat restarted meanwhile still gets the reply. */
async function report(chat: () => Chat, ask: ModelAskMessage["ask"], answer: AskAnswer): Promise<void> {
  for (let tried = 1; tried <= REPORT_TRIES; tried++) {
    try {
      await chat().modelReplied(ask.turn_id, ask.lease, answer);
      return;
    } catch (e) {
      console.warn("reporting a model reply failed; tried again", ask.turn_id, (e as Error).message);
    }
    await sleep(100 * tried, new AbortController().signal);
  }
  console.warn("a model reply could not be reported; its chat asks again", ask.turn_id);
}
