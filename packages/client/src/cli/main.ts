/**
 * `npx fanout`: the client from a terminal, for trying fanout and for scripts.
 * Reads FANOUT_URL and FANOUT_API_KEY (without them: the local `npm start`
 * service); `--json` prints the API's answers as they are (NDJSON for `watch`). Exit codes: 0 done, 1 fanout refused or
 * failed, 2 the command line is wrong.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { Fanout } from "../client.js";
import { FanoutError } from "../errors.js";
import { UnknownOptionError } from "../known-options.js";
import { LOCAL_URL } from "../local.js";
import type { ParallelArgs, ToolCallsBody } from "../types.js";
import { notFanout, serviceFrom } from "./connection.js";
import { DELIVERY_COMMANDS, DELIVERY_OPTIONS, DELIVERY_USAGE } from "./deliveries.js";
import { APPROVAL_COMMANDS, APPROVAL_OPTIONS, APPROVAL_USAGE } from "./approvals.js";
import { CONFIG_USAGE, configCommand } from "./config.js";
import type { CliIo } from "./io.js";
import { callTable, flowTable, jobTable, telemetryLine, toolTable } from "./format.js";
import { watch } from "./watch.js";

export const USAGE = `Usage: fanout <command> [options]

Commands:
  parallel --chat <id> --calls <file|->   start tool calls (a JSON array of calls, or parallel arguments)
           [--no-wait] [--timeout <s>] [--agent <name>] [--metadata <json>]
  tool-calls --chat <id> --calls <file|->  one assistant message's calls in its SDK's shape (OpenAI, Anthropic,
           [--no-wait] [--metadata <json>]  AI SDK…), answered one entry per call by its id
  jobs     --chat <id>                    the chat's active and uncollected jobs, and what a pending one waits for
  await    --chat <id> [--timeout <s>] <job_id>...   wait for jobs (past the per-request cap)
  cancel   --chat <id> <job_id>...        cancel jobs
  rerun    --chat <id> <batch_id> [--job <job_id>]... [--no-wait]   run a finished batch's failed part again
           (its retryable failures, plus each --job named); prints the whole batch
  watch    [--chat <id>]                  live events (approval requests and decisions too), with running jobs
  tools    [--agent <name>]               the tools and prompts to give a model
  flow                                    what each flow rule holds back: running, queued, busiest keys
  telemetry                               spans exported to the tenant's OTLP endpoint, dropped, the latest failure
  mcp-url  --chat <id> [--agent <name>]   the chat's MCP endpoint, for an MCP client (send the key as a bearer token)
${DELIVERY_USAGE}
${APPROVAL_USAGE}
${CONFIG_USAGE}

Options: --json (the API's answers as they are), --help
Environment: FANOUT_URL (e.g. https://fanout.example.workers.dev), FANOUT_API_KEY;
             without FANOUT_URL, the local service of \`npm start\` (${LOCAL_URL}) and its dev key
`;

class UsageError extends Error {}

const OPTIONS = {
  chat: { type: "string" },
  calls: { type: "string" },
  "no-wait": { type: "boolean" },
  timeout: { type: "string" },
  agent: { type: "string" },
  metadata: { type: "string" },
  job: { type: "string", multiple: true },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  ...DELIVERY_OPTIONS,
  ...APPROVAL_OPTIONS,
} as const;

type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

export async function run(argv: string[], io: CliIo): Promise<number> {
  try {
    let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>>;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const [command, ...rest] = parsed.positionals;
    if (parsed.values.help || !command || command === "help") {
      io.stdout.write(USAGE);
      return command || parsed.values.help ? 0 : 2;
    }
    const service = serviceFrom(io.env);
    if ("missing" in service) throw new UsageError(service.missing);
    if (service.note) io.stderr.write(`fanout: ${service.note}\n`);
    // mcp-url only prints a URL: it needs no answer from the service.
    const problem = command === "mcp-url" ? undefined : await notFanout(service.url, !io.env.FANOUT_URL);
    if (problem) {
      io.stderr.write(`fanout: ${problem}\n`);
      return 1;
    }
    try {
      return await dispatch(new Fanout(service), command, rest, parsed.values, io);
    } catch (e) {
      // A key the client does not take came from the calls file: the command line's to fix.
      if (e instanceof UnknownOptionError) throw new UsageError(e.message);
      // fanout itself refused the key: say which key and which service, not only the API's words.
      if (e instanceof FanoutError && e.code === "unauthorized")
        throw new FanoutError(
          e.status,
          e.code,
          `${e.message} FANOUT_API_KEY is not a key of the fanout at ${service.url}.`,
        );
      throw e;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`fanout: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof FanoutError) {
      io.stderr.write(`fanout: ${e.code}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

async function dispatch(fanout: Fanout, command: string, ids: string[], o: Options, io: CliIo): Promise<number> {
  const print = (value: unknown, human: () => string) =>
    io.stdout.write(`${o.json ? JSON.stringify(value) : human()}\n`);
  switch (command) {
    case "parallel": {
      const args = await readCalls(need(o.calls, "--calls <file|->"), io);
      if (o["no-wait"]) args.wait = false;
      if (o.timeout) args.timeout = seconds(o.timeout);
      const answer = await fanout.parallel(need(o.chat, "--chat <id>"), args, {
        agent: o.agent,
        ...metadataOf(o.metadata),
      });
      print(answer, () => `${answer.status}\n${jobTable(answer.jobs)}`);
      return 0;
    }
    case "tool-calls": {
      const calls = await readJson(need(o.calls, "--calls <file|->"), io);
      const body = toolCallsBody(calls, o.calls!);
      if (o["no-wait"]) body.wait = false;
      if (o.timeout) body.timeout = seconds(o.timeout);
      const answer = await fanout.toolCalls(need(o.chat, "--chat <id>"), body as ToolCallsBody, {
        agent: o.agent,
        ...metadataOf(o.metadata),
      });
      print(answer, () => `${answer.status}${answer.batch_id ? ` (${answer.batch_id})` : ""}\n${callTable(answer)}`);
      return 0;
    }
    case "jobs": {
      const jobs = await fanout.jobs(need(o.chat, "--chat <id>"));
      print({ jobs }, () => jobTable(jobs));
      return 0;
    }
    case "await": {
      const answer = await fanout.awaitJobs(need(o.chat, "--chat <id>"), needIds(ids), {
        timeoutSeconds: o.timeout ? seconds(o.timeout) : 300,
      });
      print(answer, () => `${answer.status}\n${jobTable(answer.jobs)}`);
      return 0;
    }
    case "cancel": {
      const answer = await fanout.cancel(need(o.chat, "--chat <id>"), needIds(ids));
      print(answer, () => `${answer.status}\n${jobTable(answer.jobs)}`);
      return 0;
    }
    case "rerun": {
      const [batch, ...more] = ids;
      if (!batch || more.length > 0)
        throw new UsageError("rerun takes one batch id: fanout rerun --chat <id> <batch_id> [--job <job_id>]...");
      const args = { ...(o.job?.length ? { jobs: o.job } : {}), ...(o["no-wait"] ? { wait: false } : {}) };
      const answer = await fanout.rerun(need(o.chat, "--chat <id>"), batch, args, { agent: o.agent });
      print(
        answer,
        () => `${answer.status} (${answer.batch_id}, a rerun of ${answer.rerun_of})\n${jobTable(answer.jobs)}`,
      );
      return 0;
    }
    case "watch":
      await watch(fanout, o.chat ?? null, { json: o.json === true, out: io.stdout, signal: io.signal });
      return 0;
    case "config":
      return configCommand(fanout, ids, { json: o.json === true }, io);
    case "tools": {
      const answer = await fanout.tools(o.agent);
      print(answer, () => toolTable(answer));
      return 0;
    }
    case "flow": {
      const answer = await fanout.flow();
      print(answer, () => flowTable(answer));
      return 0;
    }
    case "telemetry": {
      const answer = await fanout.telemetry();
      print(answer, () => telemetryLine(answer));
      return 0;
    }
    case "mcp-url": {
      const url = fanout.mcpUrl(need(o.chat, "--chat <id>"), { agent: o.agent });
      print({ url }, () => url);
      return 0;
    }
    default: {
      // Own keys only: `constructor` or `toString` is no command.
      const deliveryCommand = Object.hasOwn(DELIVERY_COMMANDS, command) ? DELIVERY_COMMANDS[command] : undefined;
      if (deliveryCommand)
        return deliveryCommand({ fanout, args: ids, options: o, io, usage: (m) => new UsageError(m) });
      const approvalCommand = Object.hasOwn(APPROVAL_COMMANDS, command) ? APPROVAL_COMMANDS[command] : undefined;
      if (approvalCommand)
        return approvalCommand({ fanout, args: ids, options: o, io, usage: (m) => new UsageError(m) });
      throw new UsageError(`unknown command '${command}'`);
    }
  }
}

/** The calls file: a JSON array of tool calls, or a whole `parallel` arguments object. */
async function readCalls(source: string, io: CliIo): Promise<ParallelArgs> {
  const value = await readJson(source, io);
  if (Array.isArray(value)) return { tool_calls: value };
  if (value && typeof value === "object") return value as ParallelArgs;
  throw new UsageError(`${source} must hold a JSON array of tool calls or an object of parallel arguments`);
}

/**
 * `tool-calls --calls`: a list of calls, a whole assistant message (its `tool_calls`, or an Anthropic
 * message's `tool_use` blocks), or a `/tool-calls` body.
 */
function toolCallsBody(value: unknown, source: string): Record<string, unknown> {
  if (Array.isArray(value)) return { tool_calls: value };
  if (!value || typeof value !== "object")
    throw new UsageError(`${source} must hold a JSON array of tool calls, an assistant message, or a /tool-calls body`);
  const message = value as Record<string, unknown>;
  if (!("role" in message)) return message;
  if (Array.isArray(message.tool_calls)) return { tool_calls: message.tool_calls };
  if (Array.isArray(message.content))
    return { tool_calls: message.content.filter((b) => (b as { type?: unknown })?.type === "tool_use") };
  throw new UsageError(`${source} is a ${String(message.role)} message without tool calls`);
}

/** `--metadata '{"user_id":7}'`: the batch's own ids, echoed in its events. */
function metadataOf(raw: string | undefined): { metadata?: Record<string, unknown> } {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new UsageError(`--metadata is not JSON: ${(e as Error).message}; e.g. --metadata '{"user_id":7}'`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(`--metadata must be a JSON object, e.g. --metadata '{"user_id":7}'`);
  return { metadata: value as Record<string, unknown> };
}

async function readJson(source: string, io: CliIo): Promise<unknown> {
  let text: string;
  try {
    text = source === "-" ? await io.readStdin() : await readFile(source, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${source}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${source} is not JSON: ${(e as Error).message}`);
  }
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`this command needs ${what}`);
  return value;
}

function needIds(ids: string[]): string[] {
  if (ids.length === 0) throw new UsageError("name at least one job id");
  return ids;
}

function seconds(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--timeout must be a whole number of seconds >= 1, not '${raw}'`);
  return n;
}
