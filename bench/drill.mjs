#!/usr/bin/env node
/**
 * `npm run drill`: fault drills against fanout under `wrangler dev`. Each
 * drill says what it does and ends with counts; the run fails when a job is
 * lost, a side-effecting call runs twice, or anything answers 5xx.
 */
import { BENCH_KEY, OTHER_KEY, startFanout } from "./lib/services.mjs";
import { hostileConfig } from "./lib/hostile-config.mjs";
import { fuzzPatterns } from "./regex-fuzz.mjs";
import { startToolServer } from "./lib/tool-server.mjs";

const TERMINAL = new Set(["success", "error", "cancelled", "timeout"]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const auth = { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" };

const tools = await startToolServer();
let fanout = await startFanout();
const failures = [];
const report = (name, counts, ok) => {
  console.log(`${ok ? "PASS" : "FAIL"}  ${name}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  if (!ok) failures.push(name);
};

async function call(path, body, headers = auth, method) {
  const res = await fetch(`${fanout.url}${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json };
}

/**
 * Starts `n` batches of three jobs on chats `<prefix>-<i>`: a read-only call and a side-effecting
 * call of `ms`, and a call of `longMs` that must outlive its `jobTimeout` deadline.
 */
async function startFaultBatches(prefix, n, { ms, longMs, jobTimeout }) {
  const batches = [];
  for (let i = 0; i < n; i++) {
    const chatId = `${prefix}-${i}`;
    const res = await call(`/v1/chats/${chatId}/parallel`, {
      tool_calls: [
        { tool_name: "slow", tool_args: { ms } },
        { tool_name: "slow_write", tool_args: { ms } },
        { tool_name: "slow", tool_args: { ms: longMs } },
      ],
      wait: false,
      job_timeout: jobTimeout,
    });
    if (res.status !== 200) throw new Error(`batch ${chatId}: ${res.status} ${JSON.stringify(res.json)}`);
    batches.push({ chatId, ids: res.json.jobs.map((j) => j.job_id) });
  }
  return batches;
}

/** Awaits jobs until every one is terminal (or the time is up); returns their final snapshots. */
async function settle(chatId, ids, ms = 150_000) {
  const end = Date.now() + ms;
  let jobs = [];
  while (Date.now() < end) {
    const res = await call(`/v1/chats/${chatId}/parallel`, { action: "await", job_ids: ids, timeout: 30 });
    if (res.status === 200) {
      jobs = res.json.jobs;
      if (jobs.every((j) => TERMINAL.has(j.state))) return jobs;
    } else await sleep(500);
  }
  return jobs;
}

const tool = (name, path, readOnly) => ({ name, description: name, url: `${tools.url}${path}`, read_only: readOnly, parameters: { type: "object" } });
const configure = () =>
  call("/v1/config", { tools: [tool("slow", "/slow", true), tool("slow_write", "/slow", false), tool("noop", "/noop", true)], limits: { max_wait_seconds: 95 } }, auth, "PUT");

try {
  await configure();

  // ---- schema patterns the shape check accepts, timed in V8 ------------------------------
  console.log("drill: 6 000 random patterns; every one the shape check accepts is timed on 10 000-character strings…");
  const patterns = await fuzzPatterns(6000);
  report("accepted patterns", { patterns: patterns.runs, accepted: patterns.accepted, slowest: `${patterns.worstMs} ms (${patterns.worstPattern})` }, patterns.ok);

  // ---- restart mid-run --------------------------------------------------------
  console.log("drill: restart wrangler dev (same --persist-to) in the middle of 100 running batches…");
  // The long call never answers in time: its 6 s deadline must still fire after the restart.
  const batches = await startFaultBatches("restart", 100, { ms: 4000, longMs: 120_000, jobTimeout: 6 });
  await sleep(1500);
  const { port, state } = fanout;
  await fanout.stop({ keepState: true });
  fanout = await startFanout({ port, state });
  let started = 0;
  let finished = 0;
  let deadlines = 0;
  let twice = 0;
  for (const b of batches) {
    const jobs = await settle(b.chatId, b.ids);
    started += b.ids.length;
    finished += jobs.filter((j) => TERMINAL.has(j.state)).length;
    deadlines += jobs[2]?.state === "timeout" ? 1 : 0;
    if (tools.count(b.ids[1]) > 1) twice++; // the side-effecting call
  }
  report("restart mid-run", { started, finished, lost: started - finished, "run twice": twice, "deadlines fired": `${deadlines}/100` }, started === finished && twice === 0 && deadlines === 100);

  // ---- the tool server dies mid-batch ---------------------------------------------------
  console.log("drill: kill the tool server mid-batch, bring it back 3 s later…");
  // Read-only calls retry with full-jitter backoff (up to 8 s by the 4th try), so the deadline leaves
  // room for one retry after the server is back; the long call must still end timeout, not error.
  const hit = await startFaultBatches("toolkill", 30, { ms: 3000, longMs: 120_000, jobTimeout: 40 });
  await sleep(1000);
  // A write the server had received when it died may have run: it must end "Outcome unknown". One
  // that had not left yet (a loaded machine starts some late) may run once the server is back.
  const cutWrites = new Set(hit.map((b) => b.ids[1]).filter((id) => tools.count(id) > 0));
  await tools.down();
  await sleep(3000);
  await tools.up();
  let total = 0;
  let killedEnded = 0;
  let readsOk = 0;
  let writesUnknown = 0;
  let timeouts = 0;
  let writesTwice = 0;
  for (const b of hit) {
    const jobs = await settle(b.chatId, b.ids);
    total += b.ids.length;
    killedEnded += jobs.filter((j) => TERMINAL.has(j.state)).length;
    if (jobs[0]?.state === "success") readsOk++;
    else console.log(`  read-only job ${b.ids[0]} ended ${jobs[0]?.state}: ${jobs[0]?.error ?? ""}`);
    if (cutWrites.has(b.ids[1])) {
      if (jobs[1]?.state === "error" && /Outcome unknown/.test(jobs[1].error ?? "")) writesUnknown++;
      else console.log(`  write ${b.ids[1]}, cut mid-call, ended ${jobs[1]?.state}: ${jobs[1]?.error ?? ""}`);
    }
    if (jobs[2]?.state === "timeout") timeouts++;
    if (tools.count(b.ids[1]) > 1) writesTwice++;
  }
  report(
    "tool server killed mid-batch",
    { started: total, finished: killedEnded, lost: total - killedEnded, "read-only retried to success": `${readsOk}/30`, "writes cut mid-call → outcome unknown": `${writesUnknown}/${cutWrites.size}`, "past deadline → timeout": `${timeouts}/30`, "run twice": writesTwice },
    killedEnded === total && readsOk === 30 && cutWrites.size > 0 && writesUnknown === cutWrites.size && timeouts === 30 && writesTwice === 0,
  );

  // ---- authentication ---------------------------------------------------------------
  console.log("drill: 1000 requests with wrong, missing and other-tenant keys…");
  const known = batches[0];
  const statuses = new Map();
  for (let i = 0; i < 1000; i++) {
    const kind = i % 3;
    const headers = kind === 0 ? { authorization: "Bearer wrong-key", "content-type": "application/json" } : kind === 1 ? { "content-type": "application/json" } : { authorization: `Bearer ${OTHER_KEY}` };
    const res =
      kind === 2
        ? await call(`/v1/chats/${known.chatId}/jobs/${known.ids[0]}`, undefined, headers)
        : await call(`/v1/chats/${known.chatId}/parallel`, { action: "cancel", job_ids: known.ids }, headers);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  const untouched = (await call(`/v1/chats/${known.chatId}/jobs/${known.ids[0]}`)).json?.state;
  const authOk = [...statuses.keys()].every((s) => s === 401 || s === 404) && untouched !== "cancelled";
  report("auth", { ...Object.fromEntries([...statuses].map(([s, n]) => [`HTTP ${s}`, n])), "job still": untouched }, authOk);

  // ---- hostile bodies -----------------------------------------------------------------
  console.log("drill: 10 000 malformed or hostile request bodies…");
  const hostile = (i) => {
    const pick = i % 10;
    const deep = (n) => (n === 0 ? {} : { tool_calls: [deep(n - 1)] });
    switch (pick) {
      case 0: return "{not json";
      case 1: return JSON.stringify({ tool_calls: "x".repeat(200_000) });
      case 2: return JSON.stringify(deep(200));
      case 3: return JSON.stringify({ tool_calls: Array.from({ length: 9 + (i % 20) }, () => ({ tool_name: "noop", tool_args: {} })) });
      case 4: return `{"__proto__": {"polluted": true}, "tool_calls": [{"tool_name": "noop", "tool_args": {"__proto__": {"x": 1}}}], "constructor": {"prototype": {"y": 2}}}`;
      case 5: return JSON.stringify({ tool_calls: [{ tool_name: "no\u0000pe\u202e", tool_args: { "𝔁": "💥".repeat(1000) } }] });
      case 6: return JSON.stringify({ tool_calls: [{ tool_name: "slow", tool_args: { ms: "abc" } }], timeout: -5, job_timeout: 1e308 });
      case 7: return JSON.stringify([1, 2, 3]);
      case 8: return JSON.stringify({ action: "cancel", job_ids: Array.from({ length: 500 }, (_, k) => `x-${k}`) });
      default: return JSON.stringify({ tool_calls: [{ tool_name: "parallel", tool_args: { tool_calls: [] } }], callback_url: "http://evil" });
    }
  };
  let fiveXX = 0;
  let accepted = 0;
  let leaked = 0;
  for (let i = 0; i < 10_000; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, k) => {
        const n = i + k;
        const chatId = `fuzz-${n}`;
        const res = await call(`/v1/chats/${chatId}/parallel`, hostile(n));
        if (res.status >= 500) fiveXX++;
        if (res.status === 200) accepted++;
        else if (n % 50 === 0 && (await call(`/v1/chats/${chatId}`)).status !== 404) leaked++;
      }),
    );
  }
  const alive = (await call("/v1/chats/after-fuzz/parallel", { tool_calls: [{ tool_name: "noop", tool_args: {} }] })).json?.status;
  report("hostile bodies", { requests: 10_000, "5xx": fiveXX, "accepted (valid by chance)": accepted, "refused yet created": leaked, "afterwards": alive }, fiveXX === 0 && leaked === 0 && alive === "success");

  // ---- hostile configurations and time limits, against fanout as deployed ---------------------
  console.log("drill: 2 000 hostile configurations and 200 out-of-bound time limits, against a fanout without private egress…");
  const deployed = await startFanout({}, { privateEgress: false });
  try {
    const other = { authorization: `Bearer ${OTHER_KEY}`, "content-type": "application/json" };
    const at = async (path, body, headers, method) => {
      const res = await fetch(`${deployed.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, text: await res.text() };
    };
    let configs5xx = 0;
    let acceptedConfigs = 0;
    let storedByRefused = 0;
    let slowestOther = 0;
    for (let i = 0; i < 2000; i += 20) {
      const before = (await at("/v1/config", undefined, other, "GET")).text;
      const round = await Promise.all([
        ...Array.from({ length: 20 }, async (_, k) => {
          const { method, body, refuse } = hostileConfig(i + k);
          const headers = method === "PATCH" ? { ...other, "content-type": "application/merge-patch+json" } : other;
          return { ...(await at("/v1/config", body, headers, method)), refuse };
        }),
        (async () => {
          // Another tenant's request while the hostile ones are checked.
          const start = Date.now();
          await at("/v1/config", undefined, auth, "GET");
          slowestOther = Math.max(slowestOther, Date.now() - start);
          return { status: 0 };
        })(),
      ]);
      configs5xx += round.filter((r) => r.status >= 500).length;
      const accepted = round.filter((r) => r.status === 200).length;
      acceptedConfigs += round.filter((r) => r.status === 200 && r.refuse).length;
      if (accepted === 0 && (await at("/v1/config", undefined, other, "GET")).text !== before) storedByRefused++;
    }
    report(
      "hostile configurations",
      { requests: 2000, "5xx": configs5xx, "accepted though past a bound": acceptedConfigs, "rounds where a refused request stored something": storedByRefused, "other tenant's slowest answer": `${slowestOther} ms` },
      configs5xx === 0 && acceptedConfigs === 0 && storedByRefused === 0 && slowestOther < 1000,
    );

    // Out-of-bound time limits must be refused (or bounded) without leaving a chat whose alarm throws:
    // afterwards every one of these chats still runs a short wait to its end.
    // The longest accepted limits go in too: a chat holding a timer 30 days out must still run its alarm.
    await at("/v1/config", { limits: { max_job_timeout_seconds: 2_592_000, tool_job_timeout_seconds: 2_592_000 } }, auth, "PUT");
    const huge = [1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e21, 2_592_001, -1, "1e308", 2_592_000];
    let limits5xx = 0;
    const limitChats = [];
    for (let k = 0; k < 200; k++) {
      const chat = `limits-${k}`;
      const value = huge[k % huge.length];
      const body = k % 2 === 0
        ? { tool_calls: [{ tool_name: "wait", tool_args: { seconds: value } }], job_timeout: 2_592_000, wait: false }
        : { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 1 } }], job_timeout: value, wait: false };
      const res = await at(`/v1/chats/${chat}/parallel`, body, auth, "POST");
      if (res.status >= 500) limits5xx++;
      limitChats.push(chat);
    }
    let alarmsAlive = 0;
    await Promise.all(
      limitChats.map(async (chat) => {
        const res = await at(`/v1/chats/${chat}/parallel`, { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 1 } }], job_timeout: 30, timeout: 20 }, auth, "POST");
        if (res.status === 200 && JSON.parse(res.text).jobs?.[0]?.state === "success") alarmsAlive++;
      }),
    );
    report(
      "out-of-bound time limits",
      { requests: 200, "5xx": limits5xx, "chats whose alarm still runs": `${alarmsAlive}/200` },
      limits5xx === 0 && alarmsAlive === 200,
    );
  } finally {
    await deployed.stop();
  }

  // ---- 200 concurrent clients on one chat ---------------------------------------------------
  console.log("drill: 200 concurrent clients mixing start/await/cancel/collect on one chat…");
  const chatId = "crowd";
  const ids = [];
  let errors5xx = 0;
  await Promise.all(
    Array.from({ length: 200 }, async (_, k) => {
      for (let step = 0; step < 5; step++) {
        const pick = (k + step) % 4;
        const some = ids.length ? [ids[(k * 7 + step) % ids.length]] : [];
        const body =
          pick === 0 || some.length === 0
            ? { tool_calls: [{ tool_name: "slow_write", tool_args: { ms: 50 + (k % 5) * 50 } }], wait: false }
            : pick === 1
              ? { action: "await", job_ids: some, timeout: 2 }
              : pick === 2
                ? { action: "cancel", job_ids: some }
                : { action: "collect", job_ids: some };
        const res = await call(`/v1/chats/${chatId}/parallel`, body);
        if (res.status >= 500) errors5xx++;
        if (pick === 0 || some.length === 0) if (res.status === 200) ids.push(...res.json.jobs.map((j) => j.job_id));
      }
    }),
  );
  // Every job must end: await them all (at most 64 ids per call) before reading their records.
  let final = [];
  for (let i = 0; i < ids.length; i += 64) final = final.concat(await settle(chatId, ids.slice(i, i + 64)));
  // One read of every job's record serves all three counts.
  const records = (await Promise.all(ids.map((id) => call(`/v1/chats/${chatId}/jobs/${id}`)))).map((r) => r.json);
  const done = records.filter((r) => r && TERMINAL.has(r.state));
  const ended = done.length;
  const inconsistent = done.filter((r) => (r.state === "cancelled" && r.result !== null) || (r.state === "success" && r.result === null)).length;
  const ranTwice = ids.filter((id) => tools.count(id) > 1).length;
  report(
    "200 concurrent clients",
    { jobs: ids.length, ended, "5xx": errors5xx, inconsistent, "run twice": ranTwice, sample: final.length },
    errors5xx === 0 && inconsistent === 0 && ranTwice === 0 && ended === ids.length,
  );
} catch (e) {
  console.error(e);
  failures.push("drill crashed");
} finally {
  await fanout.stop();
  await tools.close();
}
console.log(failures.length ? `\n${failures.length} drill(s) failed: ${failures.join(", ")}` : "\nall drills passed");
process.exit(failures.length ? 1 : 0);
