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
