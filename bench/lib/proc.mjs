/**
 * The workerd processes a `wrangler dev` runs (its process group): resident
 * memory and CPU time, read from /proc, so scenarios report what the runtime
 * itself used rather than the client's view.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // Linux USER_HZ

function workerdPids(groupId) {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[2] === String(groupId) && stat.includes("(workerd)");
      } catch {
        return false; // exited meanwhile
      }
    });
}

/** `{ rssMiB, cpuSeconds }` summed over the group's workerd processes. */
export function workerdUsage(groupId) {
  let rssKiB = 0;
  let ticks = 0;
  for (const pid of workerdPids(groupId)) {
    try {
      rssKiB += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime + stime
    } catch {}
  }
  return { rssMiB: rssKiB / 1024, cpuSeconds: ticks / TICKS_PER_SECOND };
}

/**
 * Waits until the instances' workerd processes are quiet (under 10 % of a core over half a
 * second, or `maxMs` passed): a side measured while another still drains its queue or its
 * alarms would pay for that side's work. Answers how long it waited.
 */
export async function settle(groupIds, maxMs = 15_000) {
  const t0 = Date.now();
  const cpu = () => groupIds.reduce((sum, id) => sum + workerdUsage(id).cpuSeconds, 0);
  for (;;) {
    const before = cpu();
    await new Promise((r) => setTimeout(r, 500));
    if (cpu() - before < 0.05 || Date.now() - t0 >= maxMs) return Date.now() - t0;
  }
}
