/**
 * A bench-only build of fanout whose every queue send takes 60 ms longer (Cloudflare's published
 * median for a send), to show the queue is off the calls' path: `npm run bench` measures the
 * fan-out overhead of this build beside the real one. It wraps the deployed entry and classes and
 * changes nothing in them; `wrangler deploy` never sees this file (bench/run.mjs points a
 * generated config at it).
 */
import worker, { ChatDO as RealChatDO, LaneDO, TenantDO } from "../../src/index";

// Not exported: every export of a Worker entry must be a handler or a class.
const QUEUE_SEND_DELAY_MS = 60;

const later = <T>(send: () => Promise<T>) => new Promise<void>((r) => setTimeout(r, QUEUE_SEND_DELAY_MS)).then(send);

function slowQueue(env: Env): Env {
  const jobs = env.JOBS;
  const slow = {
    send: (body: unknown, options?: QueueSendOptions) => later(() => jobs.send(body, options)),
    sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => later(() => jobs.sendBatch(messages, options)),
  };
  return { ...env, JOBS: slow as unknown as Env["JOBS"] };
}

export class ChatDO extends RealChatDO {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, slowQueue(env));
  }
}

export { LaneDO, TenantDO };

export default {
  fetch: (request, env, ctx) => worker.fetch(request, slowQueue(env), ctx),
  queue: (batch, env, ctx) => worker.queue(batch, slowQueue(env), ctx),
} satisfies ExportedHandler<Env>;
