/**
 * fanout's worker in Miniflare, in this process: the bundle `wrangler deploy`
 * builds and the options wrangler derives from wrangler.toml (both in worker/,
 * written by scripts/bundle.mjs), with real Durable Objects on SQLite, the
 * local queue and alarms. Storage lives in memory and goes with `stop()`.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare, type V4MiniflareOptions } from "miniflare";

const WORKER = fileURLToPath(new URL("../worker/", import.meta.url));

export interface RunningWorker {
  url: string;
  /** The worker's log lines (its console), newest last, at most the last 500. */
  logs: string[];
  stop(): Promise<void>;
}

export interface WorkerOptions {
  port?: number;
  /** Secrets and vars on top of wrangler.toml's [vars]. */
  vars: Record<string, string>;
  /** Print the worker's log lines as they come (also with FANOUT_TESTING_LOG=1). */
  log?: boolean;
}

const MAX_LOG_LINES = 500;

const logFromEnv = () => ["1", "true", "yes"].includes((process.env.FANOUT_TESTING_LOG ?? "").toLowerCase());

export async function startWorker({ port = 0, vars, log = logFromEnv() }: WorkerOptions): Promise<RunningWorker> {
  let options: Record<string, unknown>;
  try {
    options = JSON.parse(await readFile(`${WORKER}options.json`, "utf8"));
  } catch {
    throw new Error(
      `@fanout/testing: no worker bundle at ${WORKER}. In a checkout of fanout, run \`npm run bundle -w @fanout/testing\` first.`,
    );
  }
  const logs: string[] = [];
  const keep = (line: string) => {
    logs.push(line);
    if (logs.length > MAX_LOG_LINES) logs.shift();
    if (log) console.log(`[fanout] ${line}`);
  };
  // wrangler still derives options in Miniflare 4's shape; Miniflare converts them itself.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port,
      // No `Request.cf` sample from workers.cloudflare.com: offline, fetching it prints a stack
      // trace into the bot's test output, and fanout reads nothing of it.
      cf: false,
      log: new Log(log ? LogLevel.INFO : LogLevel.WARN),
      handleStructuredLogs: ({ level, message }: { level: string; message: string }) => keep(`${level}: ${message}`),
      workers: [
        {
          ...options,
          name: "fanout",
          modulesRoot: WORKER,
          modules: (options.modules as { type: string; path: string }[]).map((m) => ({
            ...m,
            path: `${WORKER}${m.path}`,
          })),
          bindings: { ...(options.bindings as Record<string, string>), ...vars },
        },
      ],
    } as V4MiniflareOptions),
  );
  try {
    const url = (await mf.ready).origin;
    return { url, logs, stop: () => mf.dispose() };
  } catch (error) {
    await mf.dispose().catch(() => {}); // a port already taken, say: no workerd left behind
    throw error;
  }
}
