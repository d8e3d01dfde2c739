/**
 * The kit as a bot's project gets it: both packages packed, installed into a
 * fresh project outside the repository with the registry's openai, vitest and
 * jest, and docs/testing.md's bot and its three tests run there as they are
 * written, on Node 22. What each step took is printed, for the docs' figures.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pack as packClient } from "../../client/test/packed.js";

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const DOCS = fileURLToPath(new URL("../../../docs/testing.md", import.meta.url));
/** docs/client.md's webhook bots, one per model SDK, each handing a turn over with `context`. */
const CLIENT_DOCS = fileURLToPath(new URL("../../../docs/client.md", import.meta.url));
const NODE_22 = process.execPath; // npm scripts put the `node` devDependency (Node 22) first

/** docs/testing.md's files: each code block under a `<!-- file: path -->` line. */
export function docFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [, path, code] of markdown.matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)```/g))
    files.set(path!, code!);
  return files;
}

/** Packs the kit from a staging copy (dist built there), so the workspace's own dist/ and worker/ stay as they are. */
async function packKit(into: string): Promise<string> {
  const stage = join(into, "stage-testing");
  await mkdir(stage, { recursive: true });
  for (const entry of ["package.json", "README.md", "LICENSE", "worker"])
    await cp(join(PACKAGE, entry), join(stage, entry), { recursive: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  await run(NODE_22, [tsc, "-p", "tsconfig.build.json", "--outDir", join(stage, "dist")], { cwd: PACKAGE });
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", into], {
    cwd: stage,
  });
  return join(into, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
}

/**
 * Each of docs/client.md's webhook bots, through a whole turn: a user's message hands the model's calls
 * to fanout and answers at once; a fresh copy of the bot (a restart between the two webhooks) goes on
 * from `batch.finished` with only what the event brings.
 */
const BOTS_TEST = `
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFanout } from "@fanout/testing";

let fanout;
beforeAll(async () => {
  fanout = await startFanout({
    tools: { weather: { read_only: true, run: ({ city }) => "Sunny in " + city } },
    config: { webhook: { events: ["batch.finished"] } },
  });
  Object.assign(process.env, { FANOUT_URL: fanout.url, FANOUT_API_KEY: fanout.apiKey, MODEL_KEY: "test" });
});
afterAll(() => fanout?.stop());

const bots = [
  ["openai-bot.mjs", () => fanout.model.openaiBaseUrl],
  ["anthropic-bot.mjs", () => fanout.model.url],
  ["ai-sdk-bot.mjs", () => fanout.model.openaiBaseUrl],
];
for (const [bot, modelUrl] of bots) {
  it(bot + " goes on from batch.finished after a restart, every call answered", async () => {
    process.env.MODEL_URL = modelUrl();
    const chat = "user-" + bot.split("-")[0];
    fanout.model
      .when({ contains: "Lisbon and Oslo" })
      .callTools([{ name: "weather", args: { city: "Lisbon" } }, { name: "weather", args: { city: "Oslo" } }, { name: "nope" }])
      .when({ contains: "Sunny in Oslo" })
      .reply("Sunny in both.");
    const replies = [];
    const reply = (chatId, text) => replies.push([chatId, text]);
    await (await import("./" + bot + "?run=first")).onMessage(chat, "Weather in Lisbon and Oslo?", reply);
    expect(replies).toEqual([]);
    const event = await fanout.webhooks.next((e) => e.type === "batch.finished" && e.data.chat_id === chat);
    await (await import("./" + bot + "?run=after-restart")).onFanoutEvent(event, reply);
    expect(replies).toEqual([[chat, "Sunny in both."]]);
    // The model heard back about each call it made, the unknown one too.
    const last = JSON.stringify(fanout.model.requests.at(-1).messages);
    for (const text of ["Sunny in Lisbon", "Sunny in Oslo", "uses unknown tool 'nope'"]) expect(last).toContain(text);
  });

  it(bot + " goes on at once when every call is refused: no batch, so no batch.finished", async () => {
    process.env.MODEL_URL = modelUrl();
    const chat = "refused-" + bot.split("-")[0];
    fanout.model.when({ contains: "Only unknown" }).callTools([{ name: "nope" }]);
    fanout.model.when({ contains: "uses unknown tool 'nope'" }).reply("There is no such tool.");
    const replies = [];
    await (await import("./" + bot + "?run=refused")).onMessage(chat, "Only unknown tools, please.", (c, t) => replies.push([c, t]));
    expect(replies).toEqual([[chat, "There is no such tool."]]);
  });
}
`;

/** A TypeScript bot's use of the kit: what its declarations promise, checked with the bot's own tsc (libraries included). */
const TYPES_CHECK = `
import { startFanout, ToolHttpError, type TestFanout, type ToolContext } from "@fanout/testing";
import { toOpenAIToolMessages } from "@fanout/client";

const fanout: TestFanout = await startFanout({
  tools: { weather: { read_only: true, run: ({ city }: { city: string }, ctx: ToolContext) => "Sunny in " + city + ", attempt " + ctx.attempt } },
  config: { limits: { max_calls: 4 }, webhook: { events: ["batch.finished"] } },
});
fanout.model.callTools([{ name: "weather", args: { city: "Oslo" } }], { text: "Looking." }).reply("Sunny.", { model: "gpt-test" });
const finished = await fanout.webhooks.next("batch.finished");
const ids: string[] = finished.data.results.jobs.map((job) => job.job_id);
const messages = toOpenAIToolMessages(finished);
const calls: number = fanout.tools.calls.length + fanout.model.requests.length + ids.length + messages.length;
// @ts-expect-error a tool needs its run function
await startFanout({ tools: { broken: { description: "no run" } } });
// @ts-expect-error the receiver's url is the kit's own
await startFanout({ config: { webhook: { url: "https://bot.example/" } } });
if (calls < 0) throw new ToolHttpError(503, "never");
await fanout.stop();
`;

const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;
const timings: Record<string, number> = {};
let dir: string;
let app: string;
let files: Map<string, string>;
let installWarnings = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fanout-kit-pack-"));
  app = await mkdtemp(join(tmpdir(), "fanout-bot-"));
  const [client, kit] = await Promise.all([packClient(dir), packKit(dir)]);
  files = docFiles(await readFile(DOCS, "utf8"));
  const bots = docFiles(await readFile(CLIENT_DOCS, "utf8"));
  expect([...bots.keys()].sort()).toEqual(["ai-sdk-bot.mjs", "anthropic-bot.mjs", "openai-bot.mjs"]);
  for (const [path, code] of bots) await writeFile(join(app, path), code);
  await writeFile(join(app, "bots.test.mjs"), BOTS_TEST);
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "a-bot", private: true, type: "module" }));
  for (const [path, code] of files) {
    await mkdir(dirname(join(app, path)), { recursive: true });
    await writeFile(join(app, path), code);
  }
  const started = Date.now();
  // The registry's packages, as a bot's project has them; the kit's own pins come with it.
  await writeFile(join(app, "types-check.ts"), TYPES_CHECK);
  await writeFile(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { module: "nodenext", target: "es2022", strict: true, noEmit: true, types: ["node"] },
      files: ["types-check.ts"],
    }),
  );
  // As docs/testing.md says: the client is the bot's dependency, the kit a devDependency.
  const devDependencies = [
    kit,
    "openai@7.59.0",
    "@anthropic-ai/sdk@1.15.0",
    "ai@7.0.173",
    "@ai-sdk/openai-compatible@3.0.92",
    "vitest@5.1.2",
    "jest@30.5.2",
    "typescript@5.9.3",
    "@types/node@22.19.1",
  ];
  const env = { ...process.env, npm_config_loglevel: "warn" };
  for (const args of [[client], ["--save-dev", ...devDependencies]]) {
    const { stderr } = await run("npm", ["install", "--no-audit", "--no-fund", ...args], { cwd: app, env });
    installWarnings += stderr;
  }
  timings.install = seconds(started);
}, 600_000);

afterAll(async () => {
  console.log(`a bot's project with the kit (seconds): ${JSON.stringify(timings)}`);
  await Promise.all([dir, app].filter(Boolean).map((d) => rm(d, { recursive: true, force: true })));
});

/** Runs a command in the bot's project on Node 22, as its CI would, and times it. */
async function inBot(name: string, command: string, args: string[], env: Record<string, string> = {}) {
  const started = Date.now();
  const bin = join(app, "node_modules", ".bin");
  // The bot's CI environment, not this runner's: vitest's own variables (NODE_ENV=test among them) left out.
  const own = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== "NODE_ENV" && !name.startsWith("VITEST")),
  );
  const result = await run(command, args, {
    cwd: app,
    env: {
      ...own,
      ...env,
      PATH: `${dirname(NODE_22)}:${bin}:${process.env.PATH}`,
      CI: "true",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
    },
  }).catch((e) => e);
  timings[name] = seconds(started);
  return { code: result.code ?? 0, output: `${result.stdout}\n${result.stderr}` };
}

describe("@fanout/testing in a fresh bot project", () => {
  it("installs as the docs say, running no script of its own or the client's, on a Node its engines name", async () => {
    const manifest = async (name: string) =>
      JSON.parse(await readFile(join(app, "node_modules", "@fanout", name, "package.json"), "utf8")) as {
        scripts?: Record<string, string>;
        engines: { node: string };
      };
    const bot = JSON.parse(await readFile(join(app, "package.json"), "utf8"));
    expect(Object.keys(bot.dependencies)).toEqual(["@fanout/client"]);
    expect(Object.keys(bot.devDependencies)).toContain("@fanout/testing");
    for (const name of ["client", "testing"]) {
      const scripts = Object.keys((await manifest(name)).scripts ?? {});
      expect(
        scripts.filter((s) => ["preinstall", "install", "postinstall", "prepare"].includes(s)),
        name,
      ).toEqual([]);
    }
    // npm may warn of other packages' scripts it skipped; none of ours, and no engine of ours unmet.
    expect(installWarnings).not.toMatch(/@fanout\/(client|testing)[^\n]*(EBADENGINE|script|prepare)/i);
    expect(installWarnings).not.toMatch(/EBADENGINE[^\n]*\n[^\n]*@fanout/);
    // The Node this suite runs on (CI's) is one the kit's engines name: the versions it claims are run.
    const { satisfies } = createRequire(import.meta.url)("semver") as {
      satisfies(version: string, range: string): boolean;
    };
    expect(satisfies(process.versions.node, (await manifest("testing")).engines.node)).toBe(true);
    // Stated once, in engines: the docs point there instead of naming versions that could drift.
    for (const doc of [DOCS, join(PACKAGE, "README.md")])
      expect(await readFile(doc, "utf8"), doc).not.toMatch(/Node (≥|>=) ?\d/);
  });

  it("docs/testing.md has the bot and a test for each runner", () => {
    expect([...files.keys()].sort()).toEqual([
      "bot.mjs",
      "test/weather.jest.test.mjs",
      "test/weather.node.test.mjs",
      "test/weather.vitest.test.mjs",
    ]);
  });

  it("type-checks a TypeScript bot's use of it, libraries' declarations included", async () => {
    const { code, output } = await inBot("tsc", NODE_22, [
      join(app, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      "tsconfig.json",
    ]);
    expect(output.trim()).toBe("");
    expect(code).toBe(0);
  });

  it("node:test, with nothing but the runner's own lines in the output", async () => {
    const { code, output } = await inBot("node:test", NODE_22, ["--test", "test/weather.node.test.mjs"]);
    expect(output).toMatch(/# pass 1\b/);
    expect(output).not.toMatch(/\[mf:|getaddrinfo|Request\.cf|^\s+at /m);
    expect(code).toBe(0);
  });

  it("vitest", async () => {
    const { code, output } = await inBot("vitest", "vitest", ["run", "test/weather.vitest.test.mjs"]);
    expect(output).toMatch(/Tests\s+1 passed/);
    expect(code).toBe(0);
  });

  it("docs/client.md's webhook bots, for openai, Anthropic and the AI SDK, keep no store between a turn's webhooks", async () => {
    const { code, output } = await inBot("bots", "vitest", ["run", "bots.test.mjs"]);
    expect(output, output).toMatch(/Tests\s+6 passed/);
    expect(code).toBe(0);
  });

  it("jest", async () => {
    const { code, output } = await inBot("jest", "jest", ["--testMatch", "**/*.jest.test.mjs"], {
      NODE_OPTIONS: "--experimental-vm-modules",
    });
    expect(output).toMatch(/Tests:\s+1 passed/);
    expect(code).toBe(0);
  });
});
