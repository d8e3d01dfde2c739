#!/usr/bin/env node
/**
 * `node bench/request-cpu.mjs <url> <wrangler pid> [--neighbour] [shape …]`: the attack shapes of
 * bench/lib/drills/request-cpu.mjs (all, or those whose names start with the words given:
 * patterns, flow, echoes, config, ids, listing, names, batches) against a fanout already running
 * under `wrangler dev` at <url> (tenants `bench` and `other` with the bench's keys, private egress
 * allowed), whose wrangler process is <wrangler pid> (it leads the process group workerd runs in):
 * for figures before and after a change. `--neighbour` also times the other tenant's `/parallel`
 * while each shape runs. `npm run drill` runs the same drill against a fanout it starts.
 */
import { requestCpu } from "./lib/drills/request-cpu.mjs";
import { startToolServer } from "./lib/tool-server.mjs";

const [url, pid, ...rest] = process.argv.slice(2);
if (!url || !Number(pid)) {
  console.error(
    "usage: node bench/request-cpu.mjs <url of a running fanout> <pid of its wrangler dev> [--neighbour] [shape …]",
  );
  process.exit(2);
}
const tools = await startToolServer();
const failures = [];
const report = (name, counts, ok) => {
  console.log(
    `${ok ? "PASS" : "FAIL"}  ${name}: ${Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  if (!ok) failures.push(name);
};
try {
  const only = rest.filter((a) => a !== "--neighbour");
  await requestCpu({
    url,
    groupId: Number(pid),
    tools,
    report,
    neighbour: rest.includes("--neighbour"),
    only: only.length ? only : undefined,
  });
} finally {
  await tools.close();
}
process.exit(failures.length ? 1 : 0);
