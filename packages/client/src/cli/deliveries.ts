/**
 * The CLI's webhook commands: `fanout events --failed` (and `--pending`,
 * `--delivered`) lists deliveries of one chat or of every chat, `fanout
 * redeliver <chat> <id>` sends an event again, and `fanout webhook test` shows
 * what the receiver answers. Kept apart from `main.ts`, which only registers them.
 */
import type { Fanout } from "../client.js";
import type { Delivery, WebhookTestAnswer } from "../types.js";
import type { CliIo } from "./io.js";
import { cell, columns } from "./format.js";

export const DELIVERY_USAGE = `  events   --failed|--pending|--delivered [--chat <id>]   webhook deliveries (every chat without --chat)
  redeliver <chat> <event_id>             send a delivered or failed event again
  webhook test                            send a signed test event to webhook.url now`;

export const DELIVERY_OPTIONS = {
  failed: { type: "boolean" },
  pending: { type: "boolean" },
  delivered: { type: "boolean" },
} as const;

interface Options {
  chat?: string;
  json?: boolean;
  failed?: boolean;
  pending?: boolean;
  delivered?: boolean;
}

interface Run {
  fanout: Fanout;
  /** The positionals after the command. */
  args: string[];
  options: Options;
  io: CliIo;
  /** The CLI's usage error (exit 2), made by `main.ts`. */
  usage(message: string): Error;
}

/** A delivery with the chat it belongs to, as `events` prints it. */
export type ChatDelivery = Delivery & { chat_id: string };

/** At most this many chats are asked at once when listing every chat's deliveries. */
const CHATS_AT_ONCE = 4;

export const DELIVERY_COMMANDS: Record<string, (run: Run) => Promise<number>> = {
  async events({ fanout, options, io, usage }) {
    const statuses = (["pending", "failed", "delivered"] as const).filter((s) => options[s]);
    if (statuses.length === 0)
      throw usage("events needs --failed, --pending or --delivered (the live stream is `fanout watch`)");
    const chats = options.chat ? [options.chat] : await everyChat(fanout);
    const found: ChatDelivery[][] = [];
    await inLanes(chats, CHATS_AT_ONCE, async (chat_id, i) => {
      const lists = await Promise.all(statuses.map((s) => fanout.deliveries(chat_id, s)));
      found[i] = lists
        .flat()
        .sort((a, b) => a.seq - b.seq)
        .map((d) => ({ chat_id, ...d }));
    });
    const events = found.flat();
    io.stdout.write(`${options.json ? JSON.stringify({ events }) : deliveryTable(events)}\n`);
    return 0;
  },

  async redeliver({ fanout, args, options, io, usage }) {
    const [chat, id, ...more] = args;
    if (!chat || !id || more.length > 0)
      throw usage("redeliver takes a chat and an event id: fanout redeliver <chat> <event_id>");
    const answer = await fanout.redeliver(chat, id);
    io.stdout.write(
      `${options.json ? JSON.stringify(answer) : `${answer.id} (${answer.type}, seq ${answer.seq}) of ${chat}: ${answer.status} again, a fresh attempt schedule`}\n`,
    );
    return 0;
  },

  async webhook({ fanout, args, options, io, usage }) {
    if (args.length !== 1 || args[0] !== "test") throw usage("the webhook command is `fanout webhook test`");
    const answer = await fanout.testWebhook();
    io.stdout.write(`${options.json ? JSON.stringify(answer) : testLine(answer)}\n`);
    return answer.error === undefined ? 0 : 1;
  },
};

/** Every chat of the tenant, top-level ones page by page and their child chats below them. */
async function everyChat(fanout: Fanout): Promise<string[]> {
  const top: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await fanout.chats({ cursor, limit: 200 });
    top.push(...page.chats.map((c) => c.chat_id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  const all: string[] = [];
  const below = async (ids: string[]): Promise<void> => {
    const children: string[][] = [];
    await inLanes(ids, CHATS_AT_ONCE, async (id, i) => {
      children[i] = (await fanout.chat(id)).children.map((c) => c.chat_id);
    });
    for (const [i, id] of ids.entries()) all.push(id, ...(children[i] ?? []));
    const next = children.flat();
    if (next.length > 0) await below(next);
  };
  await below(top);
  return [...new Set(all)];
}

async function inLanes<T>(items: T[], lanes: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}

const when = (d: Delivery) => d.next_attempt_at ?? d.delivered_at ?? d.failed_at ?? "";

/** Deliveries as aligned columns: chat, event, type, seq, status, attempts, last answer, its time, error. */
export function deliveryTable(events: ChatDelivery[]): string {
  if (events.length === 0) return "no deliveries";
  const rows = events.map((d) => [
    d.chat_id,
    d.id,
    d.type,
    String(d.seq),
    d.status,
    String(d.attempts),
    d.last_status === null ? "-" : String(d.last_status),
    when(d),
    cell(d.last_error ?? "", 50),
  ]);
  return columns(["chat", "event", "type", "seq", "status", "attempts", "last", "at", "error"], rows);
}

/** The test's outcome in one line. */
export function testLine(answer: WebhookTestAnswer): string {
  const took = `${answer.duration_ms} ms`;
  const said = answer.status === null ? `no answer after ${took}` : `answered ${answer.status} in ${took}`;
  return `webhook.url ${said}${answer.error === undefined ? "" : `: ${answer.error}`}`;
}
