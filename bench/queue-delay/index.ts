/**
 * A bench-only build of fanout whose queue sends for chats named `slowq-…` take 60 ms longer
 * (Cloudflare's published median for a send), to show what the queue costs the calls' path (the
 * `jobs` copy is off it; the `calls` messages to Worker runners are on it): `npm run
 * bench` alternates batches in such chats with batches in other chats of the same instance, so the
 * two sides differ in the delay alone (two instances differ by more than the 5 ms the target
 * allows). It wraps the deployed entry and classes and changes nothing in them; `wrangler deploy`
 * never sees this file (bench/run.mjs points a generated config at it).
 */
import worker, {
  BudgetDO,
  ChatDO as RealChatDO,
  DirectRunner,
  FlowShardDO,
  CallRunnerDO,
  SpendDO,
  TenantDO,
  TraceExport,
} from "../../src/index";

// Not exported: every export of a Worker entry must be a handler or a class.
const QUEUE_SEND_DELAY_MS = 60;

const SLOW_CHAT_PREFIX = "slowq-";

/** A queue message names its chat: `{tenant, chat_id, jobs}`. */
const slowChat = (body: unknown) =>
  String((body as { chat_id?: unknown } | null)?.chat_id ?? "").startsWith(SLOW_CHAT_PREFIX);

const later = <T>(slow: boolean, send: () => Promise<T>) =>
  slow ? new Promise<void>((r) => setTimeout(r, QUEUE_SEND_DELAY_MS)).then(send) : send();

function slowed(queue: Queue): Queue {
  const slow = {
    send: (body: unknown, options?: QueueSendOptions) => later(slowChat(body), () => queue.send(body, options)),
    sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
      const list = [...messages];
      return later(
        list.some((m) => slowChat(m.body)),
        () => queue.sendBatch(list, options),
      );
    },
  };
  return slow as unknown as Queue;
}

function slowQueue(env: Env): Env {
  return { ...env, JOBS: slowed(env.JOBS), CALLS: slowed(env.CALLS) };
}

export class ChatDO extends RealChatDO {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, slowQueue(env));
  }
}

export { BudgetDO, DirectRunner, FlowShardDO, CallRunnerDO, SpendDO, TenantDO, TraceExport };

export default {
  fetch: (request, env, ctx) => worker.fetch(request, slowQueue(env), ctx),
  queue: (batch, env, ctx) => worker.queue(batch, slowQueue(env), ctx),
} satisfies ExportedHandler<Env>;
