/**
 * Drill: the tool server dies mid-batch and comes back 3 s later. Read-only
 * calls retry to success, a write cut mid-call ends "Outcome unknown" and is
 * never sent again, and a call past its deadline still ends `timeout`.
 */
import { sleep, TERMINAL } from "./kit.mjs";

export async function toolServerKilled(ctx) {
  const { report, settle, startFaultBatches, tools } = ctx;
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
    {
      started: total,
      finished: killedEnded,
      lost: total - killedEnded,
      "read-only retried to success": `${readsOk}/30`,
      "writes cut mid-call → outcome unknown": `${writesUnknown}/${cutWrites.size}`,
      "past deadline → timeout": `${timeouts}/30`,
      "run twice": writesTwice,
    },
    killedEnded === total &&
      readsOk === 30 &&
      cutWrites.size > 0 &&
      writesUnknown === cutWrites.size &&
      timeouts === 30 &&
      writesTwice === 0,
  );
}
