/**
 * `npm run canary` against `wrangler dev` (`npm start`), with a local endpoint that holds each call
 * and counts how many it held at once. Locally nothing limits connections, so every call must run
 * at once and the canary must say so; the tenant's tools and `max_calls` are put back afterwards.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { concurrencyReached } from "../canary.mjs";
import { descendants, freePort, killAll, startScript, within } from "./processes";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const state = mkdtempSync(join(tmpdir(), "fanout-canary-"));
let started: ReturnType<typeof startScript> | undefined;
let holder: Server | undefined;

afterAll(() => {
  holder?.close();
  killAll(started?.child, started?.child.pid ? descendants(started.child.pid) : []);
  rmSync(state, { recursive: true, force: true });
});

describe("how many calls ran at once, from when they finished", () => {
  it("counts the calls that finished within half a hold of the first", () => {
    expect(concurrencyReached([20_000, 20_050, 20_100], 20_000)).toBe(3);
    // 6 at once, then 6 more that waited for a connection: they finish a hold later.
    expect(concurrencyReached([...Array(6).fill(20_000), ...Array(6).fill(40_010)], 20_000)).toBe(6);
    expect(concurrencyReached([], 20_000)).toBe(0);
  });
});

describe("npm run canary", () => {
  it("reports every call of one chat running at once under wrangler dev, and leaves the config as it was", async () => {
    let holding = 0;
    let most = 0;
    holder = createServer((req, res) => {
      req.resume();
      holding++;
      most = Math.max(most, holding);
      setTimeout(() => {
        holding--;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ result: "held" }));
      }, 2_000);
    });
    const holdPort = await freePort();
    await new Promise<void>((r) => holder!.listen(holdPort, "127.0.0.1", r));

    const [port, inspector] = await Promise.all([freePort(), freePort()]);
    started = startScript("npm", ["start"], {
      cwd: ROOT,
      env: { PORT: String(port), INSPECTOR_PORT: String(inspector), PERSIST_TO: state },
    });
    const url = `http://127.0.0.1:${port}`;
    expect(
      await within(180_000, async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true),
      started.output(),
    ).toBe(true);
    const key = "fanout-local-dev-key";
    const config = async () =>
      (await fetch(`${url}/v1/config`, { headers: { authorization: `Bearer ${key}` } })).json();
    const before = await config();

    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "scripts/canary.mjs",
        "--url",
        url,
        "--key",
        key,
        "--tool-url",
        `http://127.0.0.1:${holdPort}/hold`,
        "--hold",
        "2",
      ],
      { cwd: ROOT },
    );
    expect(stdout).toContain("12 of 12 calls ran at once");
    expect(stdout).toContain("The connection budget holds");
    expect(most).toBe(12);
    const after = await config();
    expect(after.tools).toEqual(before.tools);
    expect(after.limits.max_calls).toBe(before.limits.max_calls);
  });
});
