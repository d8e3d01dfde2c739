/**
 * Object-seconds per job, for the bench's report: `wrangler dev` cannot time
 * its objects from outside, so this runs the runtime test that does
 * (test/integration/object-seconds.test.ts, about a minute) and reads the one
 * line it prints.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** The test's report: `perJob` by scenario, `subagent` ({child, parent, perModelRequest}), the price per million. */
export async function objectSeconds() {
  const vitest = resolve(ROOT, "node_modules", "vitest", "vitest.mjs");
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [vitest, "run", "--project", "worker", "test/integration/object-seconds.test.ts"],
    {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    },
  );
  const line = /^object-seconds (\{.*\})$/m.exec(stdout);
  if (!line) throw new Error(`the object-seconds test printed no report:\n${stdout.slice(-2000)}`);
  return JSON.parse(line[1]);
}
