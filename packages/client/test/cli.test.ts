/**
 * `npx fanout` against the service under `wrangler dev`: each command, its
 * output for people and for scripts, and its errors and exit codes.
 */
import { execFile, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { beforeEach, describe, expect, it } from "vitest";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { notFanout } from "../src/cli/connection.js";
import { run, USAGE } from "../src/cli/main.js";
import { eventually } from "../../../test/eventually";
import { chat, client, configure, jsonFile, key, runCli, url, wait } from "./helpers.js";

beforeEach(() => configure({ limits: { max_wait_seconds: 1 } }));

const fanout = runCli;

const callsFile = (value: unknown) => jsonFile(value, "calls.json");

describe("fanout parallel, await, jobs, cancel", () => {
  it("runs the calls of a file and prints a job table", async () => {
    const { code, stdout } = await fanout([
      "parallel",
      "--chat",
      chat("cli"),
      "--calls",
      await callsFile([wait(0.01), wait(0.01)]),
    ]);
    expect(code).toBe(0);
    const [status, head, ...rows] = stdout.trim().split("\n");
    expect(status).toBe("success");
    expect(head).toMatch(/^job\s+tool\s+state\s+time\s+result$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^wait-\S+\s+wait\s+success\s+\d+\.\ds/);
  });

  it("starts without waiting, then awaits past the per-request cap (--json for scripts)", async () => {
    const id = chat("cli-await");
    const started = await fanout(["parallel", "--chat", id, "--calls", "-", "--no-wait", "--json"], {
      readStdin: async () => JSON.stringify({ tool_calls: [wait(2)] }),
    });
    const answer = JSON.parse(started.stdout);
    expect(answer.status).toBe("started");
    const jobs = JSON.parse((await fanout(["jobs", "--chat", id, "--json"])).stdout).jobs;
    expect(jobs.map((j: { job_id: string }) => j.job_id)).toEqual([answer.jobs[0].job_id]);
    const awaited = await fanout(["await", "--chat", id, "--timeout", "20", "--json", answer.jobs[0].job_id]);
    expect(JSON.parse(awaited.stdout)).toMatchObject({ status: "success", jobs: [{ state: "success" }] });
  });

  it("cancels jobs by id", async () => {
    const id = chat("cli-cancel");
    const started = JSON.parse(
      (await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(30)]), "--no-wait", "--json"])).stdout,
    );
    const { code, stdout } = await fanout(["cancel", "--chat", id, started.jobs[0].job_id]);
    expect(code).toBe(0);
    expect(stdout).toContain("cancelled");
    expect(stdout).toContain("Error: Parallel job was cancelled.");
  });
});

describe("fanout rerun", () => {
  it("runs a finished batch's failed part again and prints the whole batch, in its order", async () => {
    const id = chat("cli-rerun");
    const ran = await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(30), wait(0.01)]), "--json"]);
    const first = JSON.parse(ran.stdout);
    await client().cancel(id, [first.jobs[0].job_id]);
    const batch = (await client().job(id, first.jobs[0].job_id)).batch_id;
    // A cancelled call is not `retryable`: it runs again when named.
    expect(await fanout(["rerun", "--chat", id, batch])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("nothing_to_rerun"),
    });
    const { code, stdout } = await fanout(["rerun", "--chat", id, batch, "--job", first.jobs[0].job_id, "--no-wait"]);
    expect(code).toBe(0);
    const [status, head, ...rows] = stdout.trim().split("\n");
    expect(status).toMatch(new RegExp(`^started \\(batch-\\S+, a rerun of ${batch}\\)$`));
    expect(head).toMatch(/^job\s+tool\s+state/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).not.toContain(first.jobs[0].job_id);
    expect(rows[1]).toContain(first.jobs[1].job_id);
    // A second rerun waits for the first to end (it would run the same call twice): cancel its call.
    const rerunJob = rows[0]!.split(/\s+/)[0]!;
    await client().cancel(id, [rerunJob]);
    // The client answers the same way: naming the success runs it alone; the cancelled call is carried over.
    const again = await client().rerun(id, batch, { jobs: [first.jobs[1].job_id], wait: false });
    expect(again.jobs.map((j) => j.rerun_of)).toEqual([undefined, first.jobs[1].job_id]);
    expect(await fanout(["rerun", "--chat", id])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("rerun takes one batch id"),
    });
  });
});

describe("fanout watch", () => {
  it("prints each event of a chat as a JSON line until stopped", async () => {
    const id = chat("cli-watch");
    const stop = new AbortController();
    const lines: string[] = [];
    const watching = run(["watch", "--chat", id, "--json"], {
      env: { FANOUT_URL: url(), FANOUT_API_KEY: key() },
      stdout: {
        write: (t: string) => (
          lines.push(...t.trim().split("\n")), lines.some((l) => l.includes('"batch.finished"')) && stop.abort()
        ),
      },
      stderr: { write: () => {} },
      readStdin: async () => "",
      signal: stop.signal,
    });
    await new Promise((r) => setTimeout(r, 500)); // the stream is open before the batch starts
    await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(0.01)])]);
    expect(await watching).toBe(0);
    expect(lines.map((l) => JSON.parse(l).type)).toEqual([
      "chat.created",
      "job.started",
      "job.finished",
      "batch.finished",
    ]);
  });

  it("shows running jobs and a line per ended job and batch on a terminal", async () => {
    const id = chat("cli-tty");
    const stop = new AbortController();
    let screen = "";
    const watching = run(["watch", "--chat", id], {
      env: { FANOUT_URL: url(), FANOUT_API_KEY: key() },
      stdout: { isTTY: true, write: (t: string) => ((screen += t), screen.includes("■") && stop.abort()) },
      stderr: { write: () => {} },
      readStdin: async () => "",
      signal: stop.signal,
    });
    await new Promise((r) => setTimeout(r, 500));
    await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(1)])]);
    expect(await watching).toBe(0);
    expect(screen).toMatch(new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ${id}  wait-\\S+  wait  \\d\\.\\ds`)); // the progress block
    expect(screen).toMatch(new RegExp(`✓ ${id}  wait-\\S+  wait  success`));
    expect(screen).toMatch(new RegExp(`■ ${id}  batch-\\S+  success \\(1 jobs\\)`));
  });
});

describe("fanout tools", () => {
  it("lists the tools to give a model, and the prompts there are", async () => {
    const { code, stdout } = await fanout(["tools"]);
    expect(code).toBe(0);
    const [head, ...rows] = stdout.trim().split("\n");
    expect(head).toMatch(/^tool\s+description$/);
    expect(rows.find((r) => r.startsWith("parallel "))).toMatch(/^parallel\s+\S/); // with its description
    expect(rows.some((r) => /^wait\s/.test(r))).toBe(true);
    expect(rows.at(-1)).toBe("prompts: parallel, spawn_task, call_subordinate, orchestration (--json prints them)");
  });

  it("prints the API's answer with --json, for an agent's view with --agent", async () => {
    const answer = JSON.parse((await fanout(["tools", "--json"])).stdout);
    expect(answer.tools[0]).toMatchObject({ type: "function", function: { name: expect.any(String) } });
    expect(Object.keys(answer.prompts)).toEqual(["parallel", "spawn_task", "call_subordinate", "orchestration"]);
    expect(await fanout(["tools", "--agent", "nobody"])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^fanout: unknown_profile: /),
    });
  });
});

describe("fanout mcp-url", () => {
  it("prints the chat's MCP endpoint, which an MCP client uses with the key", async () => {
    const id = chat("mcp-url");
    const { code, stdout } = await fanout(["mcp-url", "--chat", id, "--agent", "default"]);
    expect(code).toBe(0);
    const printed = stdout.trim();
    expect(printed).toBe(`${url()}/v1/chats/${id}/mcp?agent=default`);
    expect(JSON.parse((await fanout(["mcp-url", "--chat", id, "--json"])).stdout)).toEqual({
      url: `${url()}/v1/chats/${id}/mcp`,
    });
    expect((await fanout(["mcp-url"])).code).toBe(2);

    const mcp = new McpClient({ name: "cli-test", version: "1" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(printed), {
        requestInit: { headers: { authorization: `Bearer ${key()}` } },
      }),
    );
    const result = await mcp.callTool({ name: "wait", arguments: { seconds: 0.01 } });
    expect(result.structuredContent).toMatchObject({ tool_name: "wait", state: "success" });
    await mcp.close();
  });
});

describe("fanout flow", () => {
  it("shows what each flow rule holds back, a line per rule and its busy keys; --json for scripts", async () => {
    expect((await fanout(["flow"])).stdout.trim()).toBe(
      "no flow rules (set `flow` in the config: docs/api.md#flow-control)",
    );
    await configure({
      limits: { max_wait_seconds: 1 },
      flow: [
        { name: "waits", tools: ["wait"], concurrency: 1 },
        { name: "paced", tools: ["http_request"], rate: { limit: 6, period_seconds: 60 } },
      ],
    });
    const id = chat("flow");
    await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(3), wait(3)]), "--no-wait"]);
    let shown = "";
    for (let i = 0; i < 40 && !shown.includes("queued 1"); i++) shown = (await fanout(["flow"])).stdout;
    expect(shown.trim().split("\n")).toEqual([
      "waits  running 1  queued 1",
      '  ""  running 1  queued 1',
      "paced  running 0  queued 0  rate 6 of 6 per 60 s available",
    ]);
    const answer = JSON.parse((await fanout(["flow", "--json"])).stdout);
    expect(answer.rules[0]).toEqual({
      name: "waits",
      running: 1,
      queued: 1,
      keys: [{ key: "", running: 1, queued: 1 }],
    });
    expect((await client().flow()).rules.map((r) => r.name)).toEqual(["waits", "paced"]);
  });
});

describe("fanout approvals, approve, deny", () => {
  it("lists the calls waiting for a person, decides them, and lists them as decided; the client does the same", async () => {
    await configure({ limits: { max_wait_seconds: 1 }, approvals: [{ tools: ["wait"], timeout_seconds: 600 }] });
    const id = chat("appr");
    const started = JSON.parse(
      (
        await fanout([
          "parallel",
          "--chat",
          id,
          "--calls",
          await callsFile([wait(0.01), wait(0.01)]),
          "--no-wait",
          "--json",
        ])
      ).stdout,
    );
    const [first, second] = started.jobs.map((j: { job_id: string }) => j.job_id);
    let listed = "";
    for (let i = 0; i < 40 && !listed.includes(second); i++) listed = (await fanout(["approvals"])).stdout;
    const [head, ...rows] = listed.trim().split("\n");
    expect(head).toMatch(/^chat\s+job\s+tool\s+agent\s+status\s+expires\s+arguments$/);
    expect(rows.filter((r) => r.startsWith(id))).toHaveLength(2);
    expect(rows.find((r) => r.includes(first))).toMatch(/\swait\s+default\s+pending\s+until \S+\s+\{"seconds":0.01\}$/);

    expect((await fanout(["approve", id, first, "--by", "ops"])).stdout.trim()).toBe(
      `${first} (wait) approved: pending`,
    );
    const denied = await client().deny(id, second, { by: "ops", reason: "not now" });
    expect(denied).toMatchObject({ job_id: second, state: "error", error: "The call was denied by ops: not now." });
    const again = await fanout(["approve", id, second]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/^fanout: already_decided: /) });
    const awaited = JSON.parse((await fanout(["await", "--chat", id, "--timeout", "20", "--json", first])).stdout);
    expect(awaited.jobs[0]).toMatchObject({ job_id: first, state: "success" });
    const decided = JSON.parse((await fanout(["approvals", "--decided", "--json"])).stdout).approvals.filter(
      (e: { chat_id: string }) => e.chat_id === id,
    );
    expect(
      decided.map((e: { job_id: string; status: string; by: string }) => [e.job_id, e.status, e.by]).sort(),
    ).toEqual(
      [
        [first, "approved", "ops"],
        [second, "denied", "ops"],
      ].sort(),
    );
    expect((await client().approvals()).approvals.filter((e) => e.chat_id === id)).toEqual([]);
    expect(await fanout(["approve", id])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("approve takes a chat and a job id"),
    });
  });
});

describe("errors", () => {
  it("says what to set when FANOUT_URL has no key (exit 2)", async () => {
    const { code, stderr } = await fanout(["jobs", "--chat", "x"], { env: { FANOUT_URL: url() } });
    expect(code).toBe(2);
    expect(stderr).toContain(
      `fanout: set FANOUT_API_KEY to a key of the service at ${url()} (one from its API_KEYS secret)`,
    );
  });

  it("prints usage for a wrong command line (exit 2) and for --help (exit 0)", async () => {
    expect(await fanout(["frobnicate"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unknown command 'frobnicate'"),
    });
    expect(await fanout(["constructor"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unknown command 'constructor'"),
    });
    expect(await fanout(["jobs"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("this command needs --chat <id>"),
    });
    expect(await fanout(["await", "--chat", "c"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("name at least one job id"),
    });
    expect(await fanout(["parallel", "--chat", "c", "--calls", "/nonexistent.json"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("cannot read /nonexistent.json"),
    });
    expect(await fanout(["--help"])).toMatchObject({ code: 0, stdout: USAGE });
  });

  it("prints fanout's refusal with its code (exit 1)", async () => {
    const { code, stderr } = await fanout([
      "parallel",
      "--chat",
      chat("cli-bad"),
      "--calls",
      await callsFile([{ tool_name: "nope", tool_args: {} }]),
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^fanout: unknown_tool: tool_calls\[0\] uses unknown tool 'nope'/);
  });
});

describe("npx fanout", () => {
  it("runs the built CLI", async () => {
    const bin = new URL("../bin/fanout.js", import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "jobs", "--chat", chat("bin"), "--json"], {
      env: { ...process.env, FANOUT_URL: url(), FANOUT_API_KEY: key() },
    }).catch((e) => e);
    expect(stdout).toBe("");
    const failed = await promisify(execFile)(process.execPath, [bin, "jobs", "--chat", "none-such"], {
      env: { ...process.env, FANOUT_URL: url(), FANOUT_API_KEY: key() },
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("fanout: chat_not_found");
  });
});

describe("which service answers", () => {
  /** Another service on a port: its own 401 for everything, as the one that held 8787 did. */
  async function otherService() {
    const server = createServer((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it("says another service holds the address instead of passing on its `unauthorized`", async () => {
    const { server, url: other } = await otherService();
    try {
      const { code, stderr } = await fanout(["jobs", "--chat", "x"], {
        env: { FANOUT_URL: other, FANOUT_API_KEY: "k" },
      });
      expect(code).toBe(1);
      expect(stderr).toBe(
        `fanout: what answers at ${other} is not fanout (GET /healthz: HTTP 401): another service holds that address; point FANOUT_URL at fanout\n`,
      );
      // Without FANOUT_URL, the advice is about the local service and its port.
      expect(await notFanout(other, true)).toContain("start fanout on another port (PORT=8788 npm start)");
    } finally {
      server.close();
    }
  });

  it("takes a fanout deployed before /healthz named itself", async () => {
    const older = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}'),
    );
    await new Promise<void>((resolve) => older.listen(0, "127.0.0.1", resolve));
    try {
      expect(await notFanout(`http://127.0.0.1:${(older.address() as AddressInfo).port}`, false)).toBeUndefined();
      expect(await notFanout(url(), false)).toBeUndefined();
    } finally {
      older.close();
    }
  });

  it("says which key fanout refused, and where", async () => {
    const { code, stderr } = await fanout(["jobs", "--chat", "x"], {
      env: { FANOUT_URL: url(), FANOUT_API_KEY: "not-a-key" },
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^fanout: unauthorized: .* FANOUT_API_KEY is not a key of the fanout at http:\/\/127\.0\.0\.1:\d+\.\n$/,
    );
  });
});

describe("fanout tool-calls and --metadata", () => {
  it("hands over one message's calls without waiting, with the batch's metadata, a row per call by its id", async () => {
    const id = chat("cli-tc");
    const calls = [
      { id: "call_a", type: "function", function: { name: "wait", arguments: '{"seconds":0.5}' } },
      { id: "call_b", type: "function", function: { name: "nope", arguments: "{}" } },
    ];
    const { code, stdout } = await fanout([
      "tool-calls",
      "--chat",
      id,
      "--calls",
      await callsFile(calls),
      "--no-wait",
      "--metadata",
      '{"user_id":7}',
    ]);
    expect(code).toBe(0);
    const [status, head, ...rows] = stdout.trim().split("\n");
    expect(status).toMatch(/^started \(batch-\S+\)$/);
    expect(head).toMatch(/^call\s+tool\s+job\s+state\s+content$/);
    expect(rows[0]).toMatch(/^call_a\s+wait\s+wait-\S+\s+(pending|running)\s+\(results come in batch\.finished\)$/);
    expect(rows[1]).toMatch(/^call_b\s+nope\s+-\s+error\s+Error: tool_calls\[1\] uses unknown tool 'nope'/);
    const batch = await client().batch(id, status!.match(/\((batch-\S+)\)/)![1]!);
    expect(batch.metadata).toEqual({ user_id: 7 });
    expect(
      await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(0.01)]), "--metadata", "[1]"]),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--metadata must be a JSON object, e.g. --metadata '{\"user_id\":7}'"),
    });
    const started = JSON.parse(
      (
        await fanout([
          "parallel",
          "--chat",
          id,
          "--calls",
          await callsFile([wait(0.01)]),
          "--metadata",
          '{"k":"v"}',
          "--json",
        ])
      ).stdout,
    );
    expect((await client().job(id, started.jobs[0].job_id)).metadata).toEqual({ k: "v" });
    // A whole assistant message is taken as its calls; a key the client does not take is the command line's.
    const message = { role: "assistant", content: null, tool_calls: [calls[0]] };
    const fromMessage = await fanout(["tool-calls", "--chat", id, "--calls", await callsFile(message), "--json"]);
    expect(JSON.parse(fromMessage.stdout).results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual([
      "call_a",
    ]);
    expect(
      await fanout(["tool-calls", "--chat", id, "--calls", await callsFile({ tool_calls: calls, wiat: false })]),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("Did you mean `wait`?") });
  });
});

describe("what a pending job waits for, and approvals in watch", () => {
  it("jobs says a job waits for approval; watch shows the request and who decided, and why", async () => {
    await configure({ limits: { max_wait_seconds: 1 }, approvals: [{ tools: ["wait"], timeout_seconds: 600 }] });
    const id = chat("cli-why");
    const stop = new AbortController();
    let screen = "";
    const watching = run(["watch", "--chat", id], {
      env: { FANOUT_URL: url(), FANOUT_API_KEY: key() },
      stdout: { write: (t: string) => ((screen += t), screen.includes("■") && stop.abort()) },
      stderr: { write: () => {} },
      readStdin: async () => "",
      signal: stop.signal,
    });
    await new Promise((r) => setTimeout(r, 500)); // the stream is open before the batch starts
    const started = JSON.parse(
      (await fanout(["parallel", "--chat", id, "--calls", await callsFile([wait(0.01)]), "--no-wait", "--json"]))
        .stdout,
    );
    const job = started.jobs[0].job_id;
    const { stdout } = await fanout(["jobs", "--chat", id]);
    expect(stdout).toMatch(new RegExp(`${job}\\s+wait\\s+pending\\s+\\S+\\s+waits for approval until \\d{4}-`));
    await client().approve(id, job, { by: "ops", reason: "looks fine" });
    expect(await watching).toBe(0);
    expect(screen).toMatch(
      new RegExp(`\\? ${id}  ${job}  wait  waits for approval until \\S+  \\{"seconds":0\\.01\\}`),
    );
    expect(screen).toMatch(new RegExp(`✓ ${id}  ${job}  wait  approved by ops: looks fine`));
  });
});

describe("stopping the CLI", () => {
  it("ends `npx fanout watch` when npm is sent SIGTERM, instead of leaving it running", async () => {
    const id = chat("cli-sigterm");
    spawn("npm", ["exec", "--", "fanout", "watch", "--chat", id], {
      cwd: new URL("../../..", import.meta.url).pathname,
      env: { ...process.env, FANOUT_URL: url(), FANOUT_API_KEY: key() },
      stdio: "ignore",
    });
    const pids = async (pattern: string) =>
      (await promisify(execFile)("pgrep", ["-f", pattern]).catch(() => ({ stdout: "" }))).stdout
        .split("\n")
        .filter(Boolean)
        .map(Number);
    // npm's own process, and the CLI's (`node …/.bin/fanout watch …`) under it, watching.
    const npm = await eventually(async () => (await pids(`npm exec fanout watch --chat ${id}`))[0], 20_000);
    await eventually(async () => (await pids(`bin/fanout watch --chat ${id}`)).length > 0, 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    process.kill(npm, "SIGTERM");
    // npm ends without passing SIGTERM on: the CLI notices its parent is gone and ends too.
    await eventually(async () => (await pids(`bin/fanout watch --chat ${id}`)).length === 0, 10_000);
  });
});
