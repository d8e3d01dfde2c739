#!/usr/bin/env node
/**
 * `node bench/neighbours.mjs <url> [attack …]`: the round-3 attacks of bench/lib/drills/neighbours.mjs
 * (all, or those named: patterns, listing, names, streams, batches) against a fanout already
 * running at <url> (tenants `bench` and `other` with the bench's keys, private egress allowed),
 * for figures before and after a change. `npm run drill` runs the same drill against a fanout it
 * starts.
 */
import { ATTACKS, neighbours } from "./lib/drills/neighbours.mjs";
import { startToolServer } from "./lib/tool-server.mjs";

const url = process.argv[2];
if (!url) {
  console.error("usage: node bench/neighbours.mjs <url of a running fanout>");
  process.exit(2);
}
const tools = await startToolServer();
const failures = [];
const report = (name, counts, ok) => {
  console.log(`${ok ? "PASS" : "FAIL"}  ${name}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  if (!ok) failures.push(name);
};
try {
  const only = process.argv.slice(3);
  await neighbours({ url, tools, report, only: only.length ? only : ATTACKS });
} finally {
  await tools.close();
}
process.exit(failures.length ? 1 : 0);
