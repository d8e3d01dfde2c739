#!/usr/bin/env node
/**
 * `npm run drill`: fault drills against fanout under `wrangler dev`. Each
 * drill says what it does and ends with counts; the run fails when a job is
 * lost, a side-effecting call runs twice, or anything answers 5xx. The drills
 * are modules of `lib/drills/`; this file starts the services they share and
 * runs them in order (the authentication drill aims at the restart drill's jobs).
 */
import { startFanout, UNLIMITED } from "./lib/services.mjs";
import { fuzzPatterns } from "./regex-fuzz.mjs";
import { startToolServer } from "./lib/tool-server.mjs";
import { drillContext } from "./lib/drills/kit.mjs";
import { restartMidRun } from "./lib/drills/restart.mjs";
import { toolServerKilled } from "./lib/drills/tool-server-kill.mjs";
import { wrongKeys } from "./lib/drills/auth.mjs";
import { hostileBodies } from "./lib/drills/hostile-bodies.mjs";
import { deployedBounds } from "./lib/drills/deployed-bounds.mjs";
import { crowdOnOneChat } from "./lib/drills/crowd.mjs";
import { flowAcrossRestart } from "./lib/drills/flow-restart.mjs";
import { requestCpu } from "./lib/drills/request-cpu.mjs";

const tools = await startToolServer();
// These drills send thousands of requests with one key: the per-key limit would answer most of them.
const ctx = drillContext({ tools, fanout: await startFanout({}, { requestsPer10s: UNLIMITED }) });

try {
  await ctx.configure();

  // ---- schemas of random patterns the checks accept, validated as fanout validates -----------
  console.log(
    "drill: 6 000 random schemas of up to 50 patterns; every one the checks accept validates 10 000-character strings…",
  );
  const patterns = await fuzzPatterns(6000);
  ctx.report(
    "accepted schemas",
    {
      schemas: patterns.runs,
      accepted: patterns.accepted,
      slowest: `${patterns.worstMs} ms (${patterns.worstPattern})`,
    },
    patterns.ok,
  );

  const batches = await restartMidRun(ctx);
  await toolServerKilled(ctx);
  await wrongKeys(ctx, batches[0]);
  await hostileBodies(ctx);
  await deployedBounds(ctx);
  await crowdOnOneChat(ctx);
  await flowAcrossRestart(ctx);

  // What one request of each attack shape costs, on a fanout of its own with the default limits
  // (1,000 requests per 10 s per key), so that nothing the earlier drills left running is counted.
  const defaults = await startFanout();
  try {
    await requestCpu({ url: defaults.url, groupId: defaults.pid, tools, report: ctx.report });
  } finally {
    await defaults.stop();
  }
} catch (e) {
  console.error(e);
  ctx.failures.push("drill crashed");
} finally {
  await ctx.fanout.stop();
  await tools.close();
}
const { failures } = ctx;
console.log(failures.length ? `\n${failures.length} drill(s) failed: ${failures.join(", ")}` : "\nall drills passed");
process.exit(failures.length ? 1 : 0);
