/**
 * For tests of our long-running scripts (`npm start`, `npm run bot`): free
 * ports to hand them, the processes they started, and proof that stopping
 * them left nothing behind (no process alive, no port listening).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A command in a process group of its own, its output collected (and shown when `DEBUG_SCRIPTS` is
 * set). It gets the environment of a person's shell: without vitest's NODE_ENV=test, which would
 * quietly turn off some of what wrangler does (its `Request.cf` download, for one).
 */
export function startScript(command: string, args: string[], options: { cwd: string; env: Record<string, string> }) {
  const { NODE_ENV: _test, ...env } = process.env;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...env, ...options.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (process.env.DEBUG_SCRIPTS) process.stderr.write(chunk);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Every live process below `pid` (children, their children…), from `ps`. */
export function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,stat="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , stat]) => !stat?.startsWith("Z"))
    .map(([p, pp]) => [Number(p), Number(pp)] as const);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [p, pp] of rows) if (pp === parent && !found.includes(p)) found.push(p), walk(p);
  };
  walk(pid);
  return found;
}

/** The ones of `pids` still running (a zombie waiting for its parent counts as gone). */
export function alive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim();
      return stat !== "" && !stat.startsWith("Z");
    } catch {
      return false; // ps exits 1 for a pid that does not exist
    }
  });
}

/** True when something accepts a TCP connection on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** Polls until `probe` holds or `ms` pass; answers whether it held. */
export async function within(ms: number, probe: () => boolean | Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Last resort after a failed test: SIGKILL whatever of it is left, so no run leaks processes. */
export function killAll(child: ChildProcess | undefined, pids: number[]): void {
  for (const pid of [...(child?.pid ? [-child.pid] : []), ...pids]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

/** Stack traces and failed DNS lookups that wrangler printed offline before it was quietened. */
export const NOISE = /getaddrinfo|ENOTFOUND|EAI_AGAIN|^\s+at .+\(.+:\d+:\d+\)$/m;
