/**
 * The benchmark scenarios (issue "Benchmarks and fault drills"). Each returns
 * raw samples; run.mjs summarises them. fanout and the floor are measured in
 * the same run, alternating request by request, so a ratio compares like with
 * like on a busy 2-core machine.
 */
import { BENCH_KEY } from "./lib/services.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { eventBytes, totalBytes } from "./lib/storage.mjs";

const now = () => performance.timeOrigin + performance.now();
/** The chat's heartbeat (`EXEC_HEARTBEAT_MS`, 10 s) and a margin. */
const WARM_UP_ALARMS_MS = 11_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let chatSeq = 0;
const chat = (prefix) => `${prefix}-${process.pid}-${++chatSeq}`;

async function post(url, body, headers = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** `key`: whose tenant the fanout calls act as (the bench tenant unless given). */
export function clients({ fanout, floor, specFloor, workerFloor, tools }, key = BENCH_KEY) {
  const auth = { authorization: `Bearer ${key}` };
  return {
    fanout: (chatId, calls, extra = {}) =>
      post(
        `${fanout.url}/v1/chats/${chatId}/parallel`,
        { tool_calls: calls.map(([tool, args]) => ({ tool_name: tool, tool_args: args })), timeout: 90, ...extra },
        auth,
      ),
    // The same instance through wrangler dev's Durable Object simulation of the rate-limit binding
    // (bench/production-limiter/index.ts): what the start figures were before the bench counted it as deployed.
    fanoutSimulatedLimiter: (chatId, calls, extra = {}) =>
      post(
        `${fanout.url}/v1/chats/${chatId}/parallel`,
        { tool_calls: calls.map(([tool, args]) => ({ tool_name: tool, tool_args: args })), timeout: 90, ...extra },
        { ...auth, "x-bench-limiter": "simulated" },
      ),
    fanoutJobs: async (chatId) => (await fetch(`${fanout.url}/v1/chats/${chatId}/jobs`, { headers: auth })).json(),
    floor: (chatId, calls, extra = {}) =>
      post(`${floor.url}/chats/${chatId}/run`, {
        calls: calls.map(([tool, args]) => ({ url: `${tools.url}/${tool}`, tool_args: args })),
        ...extra,
      }),
    // The production floor: the platform floor's work with at most 4 calls waiting per object (the rest in lanes).
    prodFloor: (chatId, calls, extra = {}) =>
      post(`${floor.url}/chats/${chatId}/run`, {
        calls: calls.map(([tool, args]) => ({ url: `${tools.url}/${tool}`, tool_args: args })),
        lanes: 4,
        ...extra,
      }),
    specFloor: (chatId, calls, extra = {}) =>
      post(`${specFloor.url}/chats/${chatId}/run`, {
        calls: calls.map(([tool, args]) => ({ url: `${tools.url}/${tool}`, tool_args: args })),
        ...extra,
      }),
    // The Worker-run floor (v1.3): calls wait in queue consumers, 4 per invocation, as fanout's do.
    workerFloor: (chatId, calls, extra = {}) =>
      post(`${workerFloor.url}/chats/${chatId}/run`, {
        calls: calls.map(([tool, args]) => ({ url: `${tools.url}/${tool}`, tool_args: args })),
        ...extra,
      }),
    direct: (jobId, tool, args) => post(`${tools.url}/${tool}`, { job_id: jobId, tool_args: args }),
    configure: (config) =>
      fetch(`${fanout.url}/v1/config`, {
        method: "PUT",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(config),
      }).then(async (r) => {
        if (!r.ok) throw new Error(`config: ${r.status} ${await r.text()}`);
      }),
  };
}

const eight = (ms) => Array.from({ length: 8 }, () => ["slow", { ms }]);

/** The sides every comparison runs, in an order that rotates with `i` so none always goes first. */
export const SIDES = ["fanout", "floor", "prodFloor", "specFloor", "workerFloor"];
const rotatedOf = (sides, i) => [...sides.slice(i % sides.length), ...sides.slice(0, i % sides.length)];
export const rotated = (i) => rotatedOf(SIDES, i);

/**
 * 1. A batch of 8 × 500 ms: fanout, the platform floor, the production floor and the contract floor
 * in rotating order; the sequential client now and then.
 */
export async function fanOut(c, reps) {
  const out = { fanout: [], floor: [], prodFloor: [], specFloor: [], workerFloor: [], sequential: [] };
  for (let i = 0; i < reps; i++) {
    for (const side of rotated(i)) {
      const t0 = now();
      const res = await c[side](chat(`fan-${side}`), eight(500));
      if (res.status !== "success") throw new Error(`${side} batch ended ${res.status}`);
      out[side].push(now() - t0);
    }
    if (i % 10 === 0) {
      const t0 = now();
      for (let k = 0; k < 8; k++) await c.direct(`seq-${i}-${k}`, "slow", { ms: 500 });
      out.sequential.push(now() - t0);
    }
  }
  return out;
}

/**
 * 1b. What the queue costs the calls' path: 8 × 500 ms batches on the build whose queue sends take
 * 60 ms longer in chats named `slowq-…` (`slow`), alternating such chats with other chats of the
 * same instance, so only the delay differs. Three pairs: calls with the default deadline (which only
 * a queue consumer can hold), calls with a 20 s `job_timeout` (which go to runners the chat starts
 * itself), and the Worker-run floor, whose `slowq-…` chats send as slowly.
 */
const QUEUE_DELAY_SIDES = [
  "fanout",
  "slowQueue",
  "nearDeadline",
  "nearDeadlineSlowQueue",
  "workerFloor",
  "workerFloorSlowQueue",
];
export async function queueDelay(slow, reps) {
  const out = Object.fromEntries(QUEUE_DELAY_SIDES.map((side) => [side, []]));
  const near = { job_timeout: 20 };
  const run = {
    fanout: () => slow.fanout(chat("qd"), eight(500)),
    slowQueue: () => slow.fanout(chat("slowq"), eight(500)),
    nearDeadline: () => slow.fanout(chat("qd"), eight(500), near),
    nearDeadlineSlowQueue: () => slow.fanout(chat("slowq"), eight(500), near),
    workerFloor: () => slow.workerFloor(chat("qd"), eight(500)),
    workerFloorSlowQueue: () => slow.workerFloor(chat("slowq"), eight(500)),
  };
  for (let i = 0; i < reps; i++) {
    for (const side of rotatedOf(QUEUE_DELAY_SIDES, i)) {
      const t0 = now();
      const res = await run[side]();
      if (res.status !== "success") throw new Error(`${side} batch ended ${res.status}`);
      out[side].push(now() - t0);
    }
  }
  return out;
}

/**
 * 2. From the tool server finishing a batch's last call to the client holding the results: an await
 * vs polling every 500 ms, and the production floor's answer, alternating with the await.
 */
export async function wakeLatency(c, tools, reps) {
  const out = { await: [], polling: [], prodFloor: [] };
  const lastFinish = (jobs) => Math.max(...jobs.map((j) => tools.call(j.job_id)?.finished ?? NaN));
  for (let i = 0; i < reps; i++) {
    const calls = Array.from({ length: 8 }, (_, k) => ["slow", { ms: 200 + 10 * k }]);
    // The production floor's chat answers once its lane has answered: what waking costs with no job state at all.
    for (const side of i % 2 ? ["prodFloor", "fanout"] : ["fanout", "prodFloor"]) {
      const waited = await c[side](chat(`wake-${side}`), calls);
      out[side === "fanout" ? "await" : "prodFloor"].push(now() - lastFinish(waited.jobs));
    }
    if (i % 3 === 0) {
      const chatId = chat("wake-poll");
      const started = await c.fanout(chatId, calls, { wait: false });
      let jobs;
      do {
        await sleep(500);
        jobs = (await c.fanoutJobs(chatId)).jobs;
      } while (jobs.some((j) => j.state === "pending" || j.state === "running"));
      out.polling.push(now() - lastFinish(started.jobs));
    }
  }
  return out;
}

/**
 * 3. `wait:false` start of 8 jobs (response time), and how long until each reaches the tool server;
 * fanout also through the simulated rate-limit binding (`fanoutSimulatedLimiter`), beside.
 */
export async function dispatch(c, tools, reps) {
  const out = {
    fanout: [],
    floor: [],
    prodFloor: [],
    specFloor: [],
    workerFloor: [],
    fanoutSimulatedLimiter: [],
    arrival: [],
    arrivalFloor: [],
    arrivalProdFloor: [],
    arrivalSpecFloor: [],
    arrivalWorkerFloor: [],
    arrivalSimulatedLimiter: [],
  };
  const arrivals = {
    fanout: out.arrival,
    floor: out.arrivalFloor,
    prodFloor: out.arrivalProdFloor,
    specFloor: out.arrivalSpecFloor,
    workerFloor: out.arrivalWorkerFloor,
    fanoutSimulatedLimiter: out.arrivalSimulatedLimiter,
  };
  for (let i = 0; i < reps; i++) {
    for (const side of rotatedOf([...SIDES, "fanoutSimulatedLimiter"], i)) {
      const t0 = now();
      const res = await c[side](chat(`start-${side}`), eight(50), { wait: false });
      out[side].push(now() - t0);
      await sleep(300);
      for (const job of res.jobs) {
        const call = tools.call(job.job_id);
        if (call) arrivals[side].push(call.arrived - t0);
      }
    }
  }
  return out;
}

/** 4. Chat B's 8 × 100 ms batches while chat A runs one long job. */
export async function headOfLine(c, reps, longMs) {
  const out = { chatB: [] };
  const long = c.fanout(chat("hol-a"), [["slow", { ms: longMs }]]);
  await sleep(200);
  const end = now() + longMs - 500;
  for (let i = 0; i < reps && now() < end; i++) {
    const t0 = now();
    await c.fanout(
      chat("hol-b"),
      Array.from({ length: 8 }, () => ["slow", { ms: 100 }]),
    );
    out.chatB.push(now() - t0);
  }
  await long;
  return out;
}

/** 5. A client per chat of `ids`, each running batches of 8 no-op calls back to back for `seconds`. */
async function throughputRound(c, side, ids, seconds) {
  let jobs = 0;
  let errors = 0;
  let unfinished = 0;
  const until = now() + seconds * 1000;
  await Promise.all(
    ids.map(async (chatId) => {
      while (now() < until) {
        try {
          const res = await c[side](
            chatId,
            Array.from({ length: 8 }, () => ["noop", {}]),
          );
          const done = res.jobs.filter((j) => j.state === "success").length;
          jobs += done;
          unfinished += res.jobs.length - done;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { jobsPerSecond: jobs / seconds, jobs, errors, unfinished };
}

/**
 * 5a. Throughput of every side with `chats` chats, in `rounds` rounds of `seconds / rounds` each, the
 * sides' order rotating from round to round and each side keeping its chats. A side measured in one
 * 20 s stretch paid alone for whatever slowed the machine meanwhile: fanout's 20 chats measured 138.8
 * jobs/s in one full run and 187–198 in the five around it. Before each side's turn the bench waits
 * until every instance is quiet (`settle`). `first`: which side starts the first round.
 */
export async function throughputRounds(c, { sides, first, chats, seconds, rounds, settle }) {
  const ids = Object.fromEntries(
    sides.map((side) => [side, Array.from({ length: chats }, (_, k) => chat(`tp-${side}-${k}`))]),
  );
  const out = Object.fromEntries(
    sides.map((side) => [side, { jobsPerSecond: 0, jobs: 0, errors: 0, unfinished: 0, seconds: 0, rounds: [] }]),
  );
  const settledMs = Object.fromEntries(sides.map((side) => [side, 0]));
  for (let r = 0; r < rounds; r++) {
    for (const side of rotatedOf(sides, first + r)) {
      settledMs[side] += await settle();
      const run = await throughputRound(c, side, ids[side], seconds / rounds);
      const o = out[side];
      o.jobs += run.jobs;
      o.errors += run.errors;
      o.unfinished += run.unfinished;
      o.seconds += seconds / rounds;
      o.rounds.push(round(run.jobsPerSecond));
    }
  }
  for (const o of Object.values(out)) o.jobsPerSecond = o.jobs / o.seconds;
  return { ...out, settledMs };
}

/** Each chat's first batch, 16 at a time, then the alarms those batches leave behind (below). */
async function warmChats(clientOf, ids) {
  for (let k = 0; k < ids.length; k += 16)
    await Promise.all(ids.slice(k, k + 16).map((id, j) => clientOf(k + j).fanout(id, [["noop", {}]])));
  // Each warm-up batch leaves its chat one alarm, 10 s on (the first job watch, which clears the
  // rest): over 1000 chats warmed in a few seconds, about 8 times the rate the measured load itself
  // leaves behind. Measuring starts once they have fired.
  await sleep(WARM_UP_ALARMS_MS);
}

/**
 * A fixed offered load: `rate` jobs/s as batches of 8 no-op jobs with `wait:true`, round-robin over
 * chats `ids` (`clientOf(k)` sends chat k's), each of which exists before the clock starts
 * (`warmChats`): this measures how many chats there are, not creating them (a new chat costs about
 * 14 ms more than a warm one; docs/benchmarks.md). `from` is where the round-robin starts.
 */
async function offeredLoad(clientOf, ids, rate, seconds, from = 0) {
  const perBatch = 8;
  const latencies = [];
  let errors = 0;
  let jobs = 0;
  const t0 = now();
  const pending = [];
  const batches = Math.round((rate * seconds) / perBatch);
  for (let i = 0; i < batches; i++) {
    const due = t0 + (i * perBatch * 1000) / rate;
    if (due > now()) await sleep(due - now());
    const sent = now();
    const k = (from + i) % ids.length;
    pending.push(
      clientOf(k)
        .fanout(
          ids[k],
          Array.from({ length: perBatch }, () => ["noop", {}]),
        )
        .then(
          (res) => {
            const ok = res.jobs.filter((j) => j.state === "success").length;
            jobs += ok;
            errors += res.jobs.length - ok;
            latencies.push(now() - sent);
          },
          () => (errors += perBatch),
        ),
    );
  }
  await Promise.all(pending);
  return { latencies, errors, jobs, seconds: (now() - t0) / 1000, batches };
}

/**
 * 5b. Scale: a fixed offered load of `rate` jobs per second over each of `counts` chats (10, 100,
 * 1000). Every set is warmed first, then measured in blocks of `seconds / 2`, in order and back
 * (10, 100, 1000, 1000, 100, 10), each after the instance is quiet (`settle`), the round-robin
 * picking up where the set's last block stopped. Measured one count after the other, 20 s each,
 * whatever slowed the machine during one of them went to that count alone: a full run read 8.5 s
 * of CPU per 1000 jobs at 1000 chats where the five runs around it read 5.9–6.7, and the scale
 * scenario alone, repeated on one instance, read 4.9–8.0 s whatever the chat count. `usage()`
 * reads workerd's CPU time, so the cost per job is the runtime's, not the client's.
 */
export async function scale(c, { usage, settle, counts, rate, seconds }) {
  const sets = counts.map((chats) => ({
    chats,
    ids: Array.from({ length: chats }, (_, k) => chat(`scale${chats}-${k}`)),
    latencies: [],
    errors: 0,
    jobs: 0,
    seconds: 0,
    cpuSeconds: 0,
    next: 0,
  }));
  for (const set of sets) await warmChats(() => c, set.ids);
  for (const set of [...sets, ...[...sets].reverse()]) {
    await settle();
    const before = usage();
    const load = await offeredLoad(() => c, set.ids, rate, seconds / 2, set.next);
    set.cpuSeconds += usage().cpuSeconds - before.cpuSeconds;
    set.latencies.push(...load.latencies);
    set.errors += load.errors;
    set.jobs += load.jobs;
    set.seconds += load.seconds;
    set.next += load.batches;
  }
  return sets.map(({ chats, latencies, errors, jobs, seconds: s, cpuSeconds }) => ({
    chats,
    latencies,
    errors,
    jobs,
    jobsPerSecond: jobs / s,
    cpuSecondsPer1000Jobs: (cpuSeconds / Math.max(1, jobs)) * 1000,
  }));
}

/** The tenants scenario's blocks, ABBA then BAAB: on average each side's blocks come as early as the other's. */
const SPREAD_BLOCKS = [
  "oneTenant",
  "manyTenants",
  "manyTenants",
  "oneTenant",
  "manyTenants",
  "oneTenant",
  "oneTenant",
  "manyTenants",
];

/**
 * 5c. No per-tenant hot object: the same offered load over `chats` chats, all in one tenant
 * (`one`) and one chat in each of `chats` tenants (`many(k)` is chat k's tenant). Both sets are
 * warmed first, then measured in eight blocks of `seconds / 4` (`SPREAD_BLOCKS`). In four blocks
 * of 10 s, one block of a side read up to 18 ms above its other (p50 43–63 ms), where alone the
 * two sides differ by 2–4 ms: whichever side a slow stretch of the machine fell on decided the
 * figure. The next block starts 11 s after the last: when each batch left its chat an alarm 10 s on
 * (before a quiet chat's job watches were parked), back to back, the one-tenant half paid for one
 * block's alarms and the other half for two. The pause stays, so runs before and after compare.
 * `usage()` reads the instance's workerd CPU: each block keeps its CPU per batch beside its p50.
 */
export async function tenantSpread(one, many, { chats, rate, seconds, usage }) {
  const sets = {
    oneTenant: { clientOf: () => one, ids: Array.from({ length: chats }, (_, k) => chat(`spread-one-${k}`)) },
    manyTenants: { clientOf: many, ids: Array.from({ length: chats }, (_, k) => chat(`spread-many-${k}`)) },
  };
  for (const set of Object.values(sets)) await warmChats(set.clientOf, set.ids);
  const out = {};
  for (const name of Object.keys(sets))
    out[name] = {
      chats,
      latencies: [],
      blockP50s: [],
      blockCpuMsPerBatch: [],
      errors: 0,
      jobs: 0,
      seconds: 0,
      next: 0,
    };
  const perSide = SPREAD_BLOCKS.length / Object.keys(sets).length;
  for (const [i, name] of SPREAD_BLOCKS.entries()) {
    if (i > 0) await sleep(WARM_UP_ALARMS_MS);
    const { clientOf, ids } = sets[name];
    const o = out[name];
    const before = usage().cpuSeconds;
    const load = await offeredLoad(clientOf, ids, rate, seconds / perSide, o.next);
    o.blockCpuMsPerBatch.push(round(((usage().cpuSeconds - before) * 1000) / Math.max(1, load.batches), 1));
    o.blockP50s.push(round(percentile(load.latencies, 50)));
    o.latencies.push(...load.latencies);
    o.errors += load.errors;
    o.jobs += load.jobs;
    o.seconds += load.seconds;
    o.next += load.batches;
  }
  for (const o of Object.values(out)) {
    o.jobsPerSecond = o.jobs / o.seconds;
    delete o.next;
  }
  return out;
}

/** The telemetry scenario's blocks: each side first and last once (`telemetryCost`). */
const TELEMETRY_BLOCKS = ["off", "on", "on", "off", "on", "off", "off", "on"];

/**
 * 5c. What tracing costs a batch (docs/api.md#traces): 8 × 500 ms batches, one at a time, from a
 * tenant without `telemetry` (`off`) and from one whose every batch is traced and its spans exported
 * (`on`: `sample_ratio` 1, to the tool server's OTLP sink), on the same instance, in eight blocks of
 * `reps / 4` (ABBA BAAB, so a slow stretch of the machine falls on both), with the instance's
 * workerd CPU per batch of each block. An export runs after its batch answered: its CPU falls in its
 * own block or the start of the next, which the order splits evenly.
 */
export async function telemetryCost(off, on, { reps, usage }) {
  const sides = { off, on };
  const out = { off: { latencies: [], blockCpuMsPerBatch: [] }, on: { latencies: [], blockCpuMsPerBatch: [] } };
  const perBlock = Math.max(1, Math.round(reps / (TELEMETRY_BLOCKS.length / 2)));
  for (const name of TELEMETRY_BLOCKS) {
    const o = out[name];
    const before = usage().cpuSeconds;
    for (let k = 0; k < perBlock; k++) {
      const t0 = now();
      const res = await sides[name].fanout(chat(`tel-${name}`), eight(500));
      if (res.status !== "success") throw new Error(`telemetry ${name}: a batch ended ${res.status}`);
      if (name === "on" && !res.trace_id) throw new Error("telemetry on: a batch's answer has no trace_id");
      o.latencies.push(now() - t0);
    }
    o.blockCpuMsPerBatch.push(round(((usage().cpuSeconds - before) * 1000) / perBlock, 1));
  }
  return out;
}

/**
 * 6. Storage: bytes each retained job adds across the chat and tenant
 * objects (small results), and, when `purgeAfterMs` is given, whether a
 * tenant with `retention_seconds: 60` returns to its baseline once purged.
 */
export async function storage(c, measure, { chats, jobsPerChat, purgeAfterMs }) {
  const ids = Array.from({ length: chats }, () => chat("store"));
  const baseline = measure();
  await Promise.all(ids.map((id) => c.fanout(id, [["noop", {}]])));
  const withChats = measure();
  await Promise.all(
    ids.map(async (id) => {
      for (let done = 1; done < jobsPerChat; done += 8) {
        const n = Math.min(8, jobsPerChat - done);
        await c.fanout(
          id,
          Array.from({ length: n }, () => ["noop", {}]),
        );
      }
    }),
  );
  await sleep(500); // the queue copies arrive (as duplicates) and settle
  const retained = measure();
  const jobs = chats * (jobsPerChat - 1);
  const perJob = (bytes) => (bytes(retained) - bytes(withChats)) / jobs;
  const result = {
    chats,
    jobs,
    baseline,
    withChats,
    retained,
    bytesPerJob: perJob(totalBytes),
    eventBytesPerJob: perJob(eventBytes),
  };
  if (purgeAfterMs) {
    await sleep(purgeAfterMs);
    result.purged = measure();
  }
  return result;
}
