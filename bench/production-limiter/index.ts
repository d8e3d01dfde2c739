/**
 * A bench-only build of fanout whose per-key rate limit answers from the isolate, as the deployed
 * binding does: Cloudflare caches its counters on the machine the Worker runs on and syncs them in
 * the background, so `limit()` waits on no network request
 * (developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/#performance). `wrangler dev`
 * simulates the binding with a Durable Object instead: one more invocation on every request, which
 * cost about 5 ms of a 35–50 ms start here (docs/benchmarks.md). The counter keeps the binding's
 * rule (a fixed window per key); a request sent with `x-bench-limiter: simulated` goes through the
 * simulated binding, so the bench measures both in the same instance. It wraps the deployed entry
 * and changes nothing in it; `wrangler deploy` never sees this file (bench/run.mjs points a
 * generated config at it).
 */
import worker, {
  BudgetDO,
  ChatDO,
  DirectRunner,
  FlowShardDO,
  CallRunnerDO,
  SpendDO,
  TenantDO,
  TraceExport,
} from "../../src/index";

export { BudgetDO, ChatDO, DirectRunner, FlowShardDO, CallRunnerDO, SpendDO, TenantDO, TraceExport };

/** wrangler.toml's period for `API_RATE_LIMIT`. */
const PERIOD_MS = 10_000;

type BenchEnv = Env & { BENCH_REQUESTS_PER_10S?: string };

/** Requests counted per key in the current window, in this isolate. */
const windows = new Map<string, { start: number; count: number }>();

function isolateLimiter(limit: number): RateLimit {
  return {
    limit: async ({ key }: RateLimitOptions): Promise<RateLimitOutcome> => {
      const now = Date.now();
      let window = windows.get(key);
      if (!window || now - window.start >= PERIOD_MS) windows.set(key, (window = { start: now, count: 0 }));
      window.count++;
      return { success: window.count <= limit };
    },
  };
}

export default {
  fetch(request, env: BenchEnv, ctx) {
    if (request.headers.get("x-bench-limiter") === "simulated") return worker.fetch(request, env, ctx);
    const limit = Number(env.BENCH_REQUESTS_PER_10S ?? 1000);
    return worker.fetch(request, { ...env, API_RATE_LIMIT: isolateLimiter(limit) }, ctx);
  },
  queue: (batch, env, ctx) => worker.queue(batch, env, ctx),
} satisfies ExportedHandler<BenchEnv>;
