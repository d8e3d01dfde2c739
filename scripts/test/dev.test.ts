/**
 * `npm start` as a person runs it: it serves fanout, prints no stack traces
 * when Cloudflare cannot be reached (this machine has no internet but the npm
 * registry), the start-and-await it prints works as pasted (no jq), and
 * SIGTERM to npm leaves no wrangler or workerd behind.
 */
import { execFile } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tryIt } from "../dev.mjs";
import { alive, descendants, freePort, killAll, listening, NOISE, startScript, within } from "./processes";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const state = mkdtempSync(join(tmpdir(), "fanout-npm-start-"));
let started: ReturnType<typeof startScript> | undefined;
let tree: number[] = [];

afterAll(() => {
  killAll(started?.child, tree);
  rmSync(state, { recursive: true, force: true });
});

describe("npm start", () => {
  it("serves fanout quietly offline, prints a start-and-await that works, and stops wrangler and workerd with it on SIGTERM", async () => {
    const [port, inspector] = await Promise.all([freePort(), freePort()]);
    started = startScript("npm", ["start"], {
      cwd: ROOT,
      env: { PORT: String(port), INSPECTOR_PORT: String(inspector), PERSIST_TO: state },
    });
    const url = `http://127.0.0.1:${port}`;
    const up = await within(180_000, async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true);
    expect(up, started.output()).toBe(true);

    const key = { authorization: "Bearer fanout-local-dev-key" };
    const batch = await fetch(`${url}/v1/chats/npm-start/parallel`, {
      method: "POST",
      headers: key,
      body: JSON.stringify({ tool_calls: [{ tool_name: "wait", tool_args: { seconds: 1 } }], wait: false }),
    });
    expect(batch.status).toBe(200);
    // What it printed, pasted into a shell: two jobs started, then awaited by the ids grep took out.
    expect(started.output()).toContain(tryIt(url));
    const { stdout } = await promisify(execFile)("sh", ["-c", tryIt(url)]);
    const awaited = JSON.parse(stdout) as { status: string; jobs: { tool_name: string; state: string }[] };
    expect(awaited.status).toBe("success");
    expect(awaited.jobs.map((j) => [j.tool_name, j.state])).toEqual([
      ["wait", "success"],
      ["wait", "success"],
    ]);
    expect(started.output()).not.toMatch(NOISE);

    tree = descendants(started.child.pid!);
    expect(tree.length).toBeGreaterThan(2); // npm's shell, this script, wrangler, workerd…
    process.kill(started.child.pid!, "SIGTERM"); // npm alone, as `kill <pid of npm>` does
    expect(await within(20_000, () => alive(tree).length === 0), `still running: ${alive(tree)}`).toBe(true);
    expect(await listening(port)).toBe(false);
    expect(await listening(inspector)).toBe(false);
    expect(started.output()).not.toMatch(NOISE);
  });

  it("on a taken port names PORT and the process holding it, and starts nothing", async () => {
    const holder = createServer(() => {});
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const refused: { code?: number; stderr: string } = await promisify(execFile)(
        process.execPath,
        [join(ROOT, "scripts", "dev.mjs")],
        { cwd: ROOT, env: { ...process.env, PORT: String(port) } },
      ).catch((e) => e);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`fanout could not start: port ${port} is in use by pid ${process.pid} (`);
      expect(refused.stderr).toContain(
        `start fanout on a free port with PORT, e.g. PORT=${port + 1} npm start (and FANOUT_URL=http://127.0.0.1:${port + 1} for the CLI).`,
      );
    } finally {
      holder.close();
    }
  });
});
