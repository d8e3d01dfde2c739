/**
 * Drill: flow slots across a restart (docs/architecture.md#flow-objects). 20 chats each start one
 * 3-second call under a rule of concurrency 3, and `wrangler dev` restarts (same `--persist-to`)
 * while slots are held. Every call must end, and afterwards three new calls must run side by side at
 * once: a slot lost with the old instances would hold one back until its holder's deadline.
 */
import { startFanout, UNLIMITED } from "../services.mjs";
import { auth, sleep, TERMINAL } from "./kit.mjs";

export async function flowAcrossRestart(ctx) {
  const { call, report, settle, tools } = ctx;
  console.log("drill: flow slots across a restart of wrangler dev, 20 chats under a rule of concurrency 3…");
  const slow = {
    name: "slow",
    description: "slow",
    url: `${tools.url}/slow`,
    read_only: true,
    parameters: { type: "object" },
  };
  const flow = [{ name: "drill-flow", tools: ["slow"], concurrency: 3 }];
  await call("/v1/config", { tools: [slow], flow, limits: { max_wait_seconds: 95 } }, auth, "PUT");
  const batches = [];
  for (let i = 0; i < 20; i++) {
    const res = await call(`/v1/chats/flow-restart-${i}/parallel`, {
      tool_calls: [{ tool_name: "slow", tool_args: { ms: 3000 } }],
      wait: false,
      job_timeout: 120,
    });
    batches.push({ chatId: `flow-restart-${i}`, ids: res.json?.jobs?.map((j) => j.job_id) ?? [] });
  }
  await sleep(1500);
  const { port, state } = ctx.fanout;
  await ctx.fanout.stop({ keepState: true });
  ctx.fanout = await startFanout({ port, state }, { requestsPer10s: UNLIMITED });
  let finished = 0;
  for (const b of batches) finished += (await settle(b.chatId, b.ids)).filter((j) => TERMINAL.has(j.state)).length;

  // Every slot came back: three new calls start together and end within a few seconds.
  await sleep(4000); // calls the old instances sent are still answered by the tool server meanwhile
  tools.resetPeak();
  const at = Date.now();
  const after = await Promise.all(
    [0, 1, 2].map((i) =>
      call(`/v1/chats/flow-after-${i}/parallel`, {
        tool_calls: [{ tool_name: "slow", tool_args: { ms: 1000 } }],
        timeout: 60,
      }),
    ),
  );
  const took = Date.now() - at;
  const side = after.every((r) => r.json?.jobs?.[0]?.state === "success") && tools.peak() === 3;
  report(
    "flow slots across a restart",
    { started: 20, finished, "three after it": `${side ? "side by side" : `peak ${tools.peak()}`} in ${took} ms` },
    finished === 20 && side && took < 10_000,
  );
  await ctx.configure();
}
