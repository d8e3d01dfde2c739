/**
 * @fanout/client outside this repository: the packed tarball installed into a
 * fresh project, then run there against the service under `wrangler dev` on
 * the machine's own Node 20 (no WebSocket of its own: the optional `ws`
 * dependency stands in) and on Node 22: a batch, its event stream, the CLI.
 */
import { execFile, spawn } from "node:child_process";
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_WEBSOCKET } from "../src/websocket.js";
import { chat, configure, key, url, wait } from "./helpers.js";
import { installInFreshProject, machineNode, pack, tempDir } from "./packed.js";

const run = promisify(execFile);
const NODE_20 = machineNode(20);
const NO_NODE_20 = "no Node 20 found on PATH outside node_modules (nor /usr/bin/node): install it to run these";
/** Skipped on a developer's machine without Node 20; in CI a missing Node 20 fails rather than passes unseen. */
const noNode20 = (ctx: { skip(note: string): void }) => {
  if (process.env.CI) throw new Error(NO_NODE_20);
  ctx.skip(NO_NODE_20);
};

/** What a user's first script does: open a chat's stream, run a batch, read the stream to its end. */
const SCRIPT = `
import { Fanout } from "@fanout/client";
const fanout = new Fanout({ url: process.env.FANOUT_URL, apiKey: process.env.FANOUT_API_KEY });
const chat = process.env.CHAT;
const stream = await fanout.events(chat); // subscribed: the batch below is seen whole
const answer = await fanout.parallel(chat, { tool_calls: ${JSON.stringify([wait(0.01), wait(0.01)])} });
const types = [];
for await (const event of stream) {
  types.push(event.type);
  if (event.type === "batch.finished") break;
}
console.log(JSON.stringify({ node: process.version, ownWebSocket: typeof WebSocket === "function", status: answer.status, types }));
`;

let dir: string;
let app: string;
let warnings: string;

beforeAll(async () => {
  await configure({ limits: { max_wait_seconds: 5 } });
  dir = await tempDir();
  ({ app, warnings } = await installInFreshProject(await pack(dir), NODE_20 ?? process.execPath));
  await writeFile(join(app, "first.mjs"), SCRIPT);
  await writeFile(join(app, "calls.json"), JSON.stringify([wait(0.01)]));
}, 180_000);

afterAll(async () => {
  await Promise.all([dir, app].filter(Boolean).map((d) => rm(d, { recursive: true, force: true })));
});

const env = (more: Record<string, string> = {}) => ({
  ...process.env,
  FANOUT_URL: url(),
  FANOUT_API_KEY: key(),
  ...more,
});
/** The CLI as npm linked it into the project. */
const bin = () => join(app, "node_modules", ".bin", "fanout");
const cli = (...args: string[]) => run(NODE_20!, [bin(), ...args], { cwd: app, env: env() });

describe("the installed package", () => {
  it("installs on Node 20 without an engine warning, with `ws` beside it", async () => {
    expect(warnings).not.toMatch(/EBADENGINE[\s\S]*@fanout\/client/);
    const { stdout } = await run(
      NODE_20 ?? process.execPath,
      ["-e", "import('ws').then((m) => console.log(typeof m.WebSocket))"],
      { cwd: app },
    );
    expect(stdout.trim()).toBe("function");
  });

  it.for([
    ["Node 20", NODE_20, 20, false],
    ["Node 22", process.execPath, 22, true],
  ] as const)("runs a batch and reads its event stream on %s", async ([, binary, major, ownWebSocket], ctx) => {
    if (!binary) return noNode20(ctx);
    const { stdout } = await run(binary, ["first.mjs"], { cwd: app, env: env({ CHAT: chat("packed") }) });
    const outcome = JSON.parse(stdout);
    expect(outcome.node).toMatch(new RegExp(`^v${major}\\.`));
    expect(outcome.ownWebSocket).toBe(ownWebSocket); // on Node 20 the events came through `ws`
    expect(outcome.status).toBe("success");
    expect(outcome.types[0]).toBe("chat.created");
    expect(outcome.types.sort()).toEqual([
      "batch.finished",
      "chat.created",
      "job.finished",
      "job.finished",
      "job.started",
      "job.started",
    ]);
  });

  it("installs `fanout` whose commands run on Node 20", async (ctx) => {
    if (!NODE_20) return noNode20(ctx);
    const tools = JSON.parse((await cli("tools", "--json")).stdout);
    expect(tools.tools.map((t: { function: { name: string } }) => t.function.name)).toContain("parallel");
    const { stdout } = await cli("parallel", "--chat", chat("packed-cli"), "--calls", "calls.json");
    expect(stdout).toMatch(/^success\njob\s+tool\s+state\s+time\s+result\nwait-\S+\s+wait\s+success/);
  });

  it("`fanout watch` on Node 20 prints a chat's events until Ctrl-C", async (ctx) => {
    if (!NODE_20) return noNode20(ctx);
    const id = chat("packed-watch");
    const watcher = spawn(NODE_20, [bin(), "watch", "--chat", id, "--json"], { cwd: app, env: env() });
    let out = "";
    const ended = new Promise<number | null>((resolve) => watcher.on("exit", (code) => resolve(code)));
    const finished = new Promise<void>((resolve) =>
      watcher.stdout.on("data", (chunk) => ((out += chunk), out.includes('"batch.finished"') && resolve())),
    );
    await new Promise((r) => setTimeout(r, 1500)); // watch connects before the batch starts
    await cli("parallel", "--chat", id, "--calls", "calls.json");
    await finished;
    watcher.kill("SIGINT");
    expect(await ended).toBe(0);
    const types = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).type);
    expect(types.slice(0, 4)).toEqual(["chat.created", "job.started", "job.finished", "batch.finished"]);
    expect(types.slice(4).every((t) => t === "chat.idle")).toBe(true); // it may come before Ctrl-C does
  });

  it("says what to install when Node 20 has no `ws` either", async (ctx) => {
    if (!NODE_20) return noNode20(ctx);
    const ws = join(app, "node_modules", "ws");
    await rename(ws, `${ws}-away`);
    try {
      const failed = await run(NODE_20, ["first.mjs"], { cwd: app, env: env({ CHAT: chat("packed-nows") }) }).catch(
        (e) => e,
      );
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(NO_WEBSOCKET);
    } finally {
      await rename(`${ws}-away`, ws);
    }
  });
});
