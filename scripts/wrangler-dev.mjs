// @ts-check
/**
 * `wrangler dev` started from our scripts (`npm start`, `npm run bot`) so that
 * stopping the script stops everything it started. wrangler runs workerd under
 * it, so killing the first process is not enough: each wrangler gets a process
 * group of its own, and a signal to the script ends every group (then SIGKILL
 * after a grace period). A script whose parent dies without telling it (the
 * shell under `npm start` does not pass SIGTERM on) stops the same way.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Keeps wrangler quiet and fast offline; a value already in the environment wins.
 * - WRANGLER_SEND_METRICS: no telemetry.
 * - WRANGLER_HIDE_BANNER: no banner, and so no npm update check (wrangler runs it from the banner).
 * - CLOUDFLARE_CF_FETCH_ENABLED: miniflare does not download `Request.cf` from workers.cloudflare.com
 *   (offline that printed two `getaddrinfo` stack traces); requests get its built-in placeholder.
 */
export const QUIET_WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

const WRANGLER_BIN = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin",
  "wrangler.js",
);

/**
 * @typedef {object} DevOptions
 * @property {string} cwd the directory of the Worker's wrangler.toml
 * @property {number} port
 * @property {number} [inspectorPort]
 * @property {string} [persistTo] where local state lives (default: wrangler's, `.wrangler/state` in `cwd`)
 * @property {Record<string, string>} [vars] passed as `--var NAME:value` (they win over .dev.vars)
 * @property {Record<string, string>} [env] extra environment for wrangler
 * @property {(line: string) => void} [output] each line wrangler prints; default: passed through as it is
 */

/**
 * Starts `wrangler dev` on 127.0.0.1 in a process group of its own.
 * @param {DevOptions} options
 * @returns {import("node:child_process").ChildProcess}
 */
export function startWranglerDev({ cwd, port, inspectorPort, persistTo, vars = {}, env = {}, output }) {
  const args = [
    WRANGLER_BIN,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--show-interactive-dev-session=false",
  ];
  if (inspectorPort !== undefined) args.push("--inspector-port", String(inspectorPort));
  if (persistTo) args.push("--persist-to", persistTo);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...QUIET_WRANGLER_ENV, ...process.env, ...env },
    detached: true, // its own process group, so it and workerd can be ended together
    stdio: ["ignore", output ? "pipe" : "inherit", output ? "pipe" : "inherit"],
  });
  if (output) for (const stream of [child.stdout, child.stderr]) forEachLine(stream, output);
  return child;
}

/** @param {import("node:stream").Readable | null} stream @param {(line: string) => void} each */
function forEachLine(stream, each) {
  if (!stream) return;
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) each(line);
  });
  stream.on("end", () => rest && each(rest));
}

/** True while any process of the group led by `pid` is alive. @param {number} pid */
function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {number} pid @param {NodeJS.Signals} signal */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone already */
  }
}

/**
 * Ends each child's whole process group: `signal`, then SIGKILL for what is left after `graceMs`.
 * @param {import("node:child_process").ChildProcess[]} children
 * @param {{ signal?: NodeJS.Signals, graceMs?: number }} [options]
 */
export async function stopGroups(children, { signal = "SIGTERM", graceMs = 8000 } = {}) {
  const pids = children.map((c) => c.pid).filter((pid) => pid !== undefined);
  for (const pid of pids) signalGroup(pid, signal);
  const until = Date.now() + graceMs;
  while (pids.some(groupAlive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(groupAlive)) signalGroup(pid, "SIGKILL");
}

/**
 * Runs `stop` once, then exits, on SIGINT, SIGTERM or SIGHUP, or when the parent process goes away;
 * a second signal exits at once. Children still alive when this process exits anyway are killed.
 * @param {import("node:child_process").ChildProcess[]} children
 * @param {(reason: string) => Promise<void>} stop
 */
export function stopOnSignals(children, stop) {
  let stopping = false;
  const parent = process.ppid;
  /** @param {string} reason */
  const shutdown = (reason) => {
    if (stopping) return process.exit(1);
    stopping = true;
    clearInterval(orphanWatch);
    stop(reason).then(
      () => process.exit(0),
      (e) => {
        console.error(`stopping failed: ${e instanceof Error ? e.message : e}`);
        process.exit(1);
      },
    );
  };
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]))
    process.on(signal, () => shutdown(signal));
  const orphanWatch = setInterval(() => process.ppid !== parent && shutdown("parent exited"), 500);
  orphanWatch.unref();
  process.on("exit", () => {
    for (const pid of children.map((c) => c.pid)) if (pid !== undefined) signalGroup(pid, "SIGKILL");
  });
}

/**
 * Resolves once `url` answers 2xx; rejects after `ms`, or at once if `child` exits first.
 * @param {string} url @param {number} ms @param {import("node:child_process").ChildProcess} [child]
 */
export async function waitUntilUp(url, ms, child) {
  const until = Date.now() + ms;
  let exited = child?.exitCode !== null && child?.exitCode !== undefined;
  child?.once("exit", () => (exited = true));
  while (Date.now() < until) {
    if (exited) throw new Error(`the process serving ${url} exited before it was ready: see its output above`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${ms / 1000} s: see the output above`);
}
