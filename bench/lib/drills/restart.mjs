/**
 * Drill: `wrangler dev` restarts (same `--persist-to`) in the middle of 100
 * running batches. Every job must end, the side-effecting call must not run
 * twice, and every deadline must still fire. Answers the batches, whose first
 * chat the authentication drill then tries to reach.
 */
import { startFanout, UNLIMITED } from "../services.mjs";
import { sleep, TERMINAL } from "./kit.mjs";

export async function restartMidRun(ctx) {
  const { report, settle, startFaultBatches, tools } = ctx;
  console.log("drill: restart wrangler dev (same --persist-to) in the middle of 100 running batches…");
  // The long call never answers in time: its 6 s deadline must still fire after the restart.
  const batches = await startFaultBatches("restart", 100, { ms: 4000, longMs: 120_000, jobTimeout: 6 });
  await sleep(1500);
  const { port, state } = ctx.fanout;
  await ctx.fanout.stop({ keepState: true });
  ctx.fanout = await startFanout({ port, state }, { requestsPer10s: UNLIMITED });
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
  report(
    "restart mid-run",
    { started, finished, lost: started - finished, "run twice": twice, "deadlines fired": `${deadlines}/100` },
    started === finished && twice === 0 && deadlines === 100,
  );
  return batches;
}
