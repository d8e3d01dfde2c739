/**
 * Direct IM delivery (docs/api.md#hand-back-and-im-delivery): when a subordinate of a batch started with
 * `?notify={"telegram_chat_id":…}` ends, a short summary goes to that chat
 * through the Bot API, in addition to (never instead of) the hand-back.
 */
import { egressProblem } from "../egress/policy";
import { egressFetch } from "../egress/fetch";
import { boundedSignal } from "../util/abort";
import { redact } from "../util/redact";
import { ATTEMPT_TIMEOUT_MS } from "../webhooks/delivery-rules";
import type { AttemptResult } from "../webhooks/send";

export interface TelegramTarget {
  api_base_url: string;
  bot_token: string;
  /** Every stored secret of the tenant: Telegram's answer is redacted of them. */
  secrets: string[];
}

const SUMMARY_CHARS = 500;

/** `【label】done` (or `failed`) and the first 500 characters of the result or error. */
export function subagentSummary(label: string, succeeded: boolean, text: string | null): string {
  const head = `【${label}】${succeeded ? "done" : "failed"}`;
  const body = [...(text ?? "")].slice(0, SUMMARY_CHARS).join("");
  return body ? `${head}\n${body}` : head;
}

/** The `telegram_chat_id` of a request's `notify`, or undefined when it asks for no Telegram message. */
export function telegramChatId(notify: string | null): string | number | undefined {
  if (!notify) return undefined;
  const parsed = JSON.parse(notify) as { telegram_chat_id?: string | number };
  return parsed.telegram_chat_id;
}

export async function sendTelegram(
  target: TelegramTarget,
  chatId: string | number,
  text: string,
  stop: AbortSignal,
  allowPrivateEgress: boolean,
): Promise<AttemptResult> {
  // Checked at every send (docs/api.md#outbound-urls): the config may have been stored under other rules.
  const problem = egressProblem(target.api_base_url, allowPrivateEgress);
  if (problem)
    return {
      status: null,
      error: `The Telegram api_base_url ${problem}; outbound requests there are not allowed.`,
      refused: true,
    };
  const bounded = boundedSignal(stop, ATTEMPT_TIMEOUT_MS);
  const base = target.api_base_url.replace(/\/+$/, "");
  try {
    const res = await egressFetch(allowPrivateEgress)(`${base}/bot${target.bot_token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: chatId, text }),
      signal: bounded.signal,
    });
    const answer = await res.text();
    // The token is part of the URL: never echo the URL into an error.
    return {
      status: res.status,
      error: res.ok ? "" : `Telegram answered ${res.status}: ${redact(answer, target.secrets).slice(0, 200)}`,
    };
  } catch {
    const timedOut = bounded.signal.reason?.name === "TimeoutError";
    return {
      status: null,
      error: timedOut
        ? `Telegram gave no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s.`
        : "Network error reaching Telegram.",
    };
  } finally {
    bounded.release();
  }
}
