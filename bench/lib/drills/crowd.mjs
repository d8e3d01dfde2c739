/**
 * Drill: 200 concurrent clients mixing start, await, cancel and collect on one
 * chat. No 5xx, every job ends, no record is inconsistent with its state, and
 * no side-effecting call runs twice.
 */
import { TERMINAL } from "./kit.mjs";

export async function crowdOnOneChat(ctx) {
  const { call, report, settle, tools } = ctx;
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
  const inconsistent = done.filter(
    (r) => (r.state === "cancelled" && r.result !== null) || (r.state === "success" && r.result === null),
  ).length;
  const ranTwice = ids.filter((id) => tools.count(id) > 1).length;
  report(
    "200 concurrent clients",
    { jobs: ids.length, ended, "5xx": errors5xx, inconsistent, "run twice": ranTwice, sample: final.length },
    errors5xx === 0 && inconsistent === 0 && ranTwice === 0 && ended === ids.length,
  );
}
