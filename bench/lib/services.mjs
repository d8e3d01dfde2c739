/**
 * fanout and the platform floor, each under its own `wrangler dev` with a
 * throwaway `--persist-to` directory, on free ports. The floor is copied out
 * of ../shared/floor (read-only) and runs on this project's wrangler (the
 * same version the floor pins), so nothing is downloaded.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
export const BENCH_TENANT = "bench";
export const BENCH_KEY = "bench-local-key";
/** A second tenant, for drills that cross tenants and scenarios that need their own limits. */
export const OTHER_KEY = "other-tenant-key";
/** The tenant whose batches are traced and exported (the telemetry scenario). */
export const TRACED_KEY = "traced-tenant-key";

export async function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/**
 * Where every instance keeps its objects' storage: in memory (`/dev/shm`) where the machine has it,
 * or `BENCH_STATE_DIR`. Local workerd syncs each SQLite commit to disk on the one thread that runs
 * the whole instance, so every object and the worker wait on the disk in turn; a deployed object's
 * write is confirmed by replicas while it runs on, and holds back only its own output
 * (docs/benchmarks.md). On disk the syncs cost fanout 15-22 ms of a batch's overhead and the
 * Worker-run floor 9-17 ms, in measured pairs.
 */
const STATE_ROOT = process.env.BENCH_STATE_DIR ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());

async function until(probe, ms, what) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    let ok = false;
    try {
      ok = await probe();
    } catch (e) {
      if (/exited/.test(e.message)) throw e;
    }
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not start within ${ms / 1000} s`);
}

/**
 * `wrangler dev` on ports of its own. `freePort` frees the port it found before wrangler binds it,
 * and wrangler picks more ports of its own, so another instance starting meanwhile can take one: a
 * drill run once lost its sixth instance to "Address already in use". An instance that exits while
 * starting is started again, on new ports unless the caller named one (a restart drill).
 */
async function wranglerDev(cwd, extra, name, reuse = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWranglerDev(cwd, extra, name, reuse);
    } catch (e) {
      if (!/exited/.test(e.message) || attempt === 3) throw e;
      console.error(`${name}: wrangler dev exited while starting; starting it again (attempt ${attempt + 1} of 3)`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

async function startWranglerDev(cwd, extra, name, reuse) {
  const port = reuse.port ?? (await freePort());
  const inspector = await freePort();
  const state = reuse.state ?? mkdtempSync(join(STATE_ROOT, `${name}-state-`));
  // wrangler runs on the Node running this script (22, from the project's devDependency under npm run).
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      ...extra,
    ],
    {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  /** `keepState`: stop the process only (a restart drill starts it again on the same state). */
  const stop = async ({ keepState = false, signal = "SIGTERM" } = {}) => {
    try {
      process.kill(-child.pid, signal);
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
    if (!keepState) rmSync(state, { recursive: true, force: true });
  };
  let exited = false;
  child.once("exit", () => (exited = true));
  try {
    await until(
      async () => {
        if (exited) throw new Error(`${name}: wrangler dev exited`);
        return (await fetch(`${url}/healthz`)).ok;
      },
      120_000,
      name,
    );
  } catch (e) {
    // A restart drill's state is what it checks afterwards: a failed start must not wipe it.
    await stop({ keepState: reuse.state !== undefined });
    throw e;
  }
  return { url, port, inspector, state, pid: child.pid, stop };
}

/**
 * wrangler.toml with `changes` applied, written beside it for one run (paths in it are relative
 * to that folder); `remove` deletes it.
 */
function configCopy(name, changes) {
  const path = join(ROOT, `wrangler.${name}.toml`);
  let toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  if (changes.main) toml = toml.replace(/^main = ".*"$/m, `main = "${changes.main}"`);
  if (changes.requestsPer10s)
    toml = toml.replace(
      /^simple = \{ limit = \d+, period = 10 \}$/m,
      `simple = { limit = ${changes.requestsPer10s}, period = 10 }`,
    );
  writeFileSync(path, toml);
  return { path, remove: () => rmSync(path, { force: true }) };
}

/**
 * Requests per 10 s per key for instances that measure speed or drill something else than fair
 * share: one bench key sends more than the default 1,000 in the throughput scenarios.
 */
export const UNLIMITED = 10_000_000;

/**
 * `reuse`: the port and state directory of an earlier run, to restart it where it stopped.
 * `privateEgress: false` runs fanout as deployed: only public https hosts may be called.
 * `requestsPer10s`: the per-key rate limit (default: wrangler.toml's).
 * `productionLimiter`: the bench-only entry `bench/production-limiter/index.ts`, whose rate limit
 * answers from the isolate as the deployed binding does (needs `requestsPer10s`).
 */
export async function startFanout(
  reuse = {},
  { privateEgress = true, requestsPer10s, productionLimiter = false } = {},
) {
  const configKey = Buffer.alloc(32, 9).toString("base64");
  const entry = productionLimiter ? { main: "bench/production-limiter/index.ts" } : {};
  const config = requestsPer10s
    ? configCopy(`limit-${requestsPer10s}${productionLimiter ? "-isolate" : ""}`, { requestsPer10s, ...entry })
    : undefined;
  const fanout = await wranglerDev(
    ROOT,
    [
      ...(config ? ["--config", config.path] : []),
      "--var",
      `API_KEYS:${BENCH_TENANT}:${BENCH_KEY},other:${OTHER_KEY},traced:${TRACED_KEY}`,
      "--var",
      `CONFIG_KEY:${configKey}`,
      "--var",
      `ALLOW_PRIVATE_EGRESS:${privateEgress}`,
      ...(productionLimiter ? ["--var", `BENCH_REQUESTS_PER_10S:${requestsPer10s}`] : []),
    ],
    "fanout",
    reuse,
  );
  return config ? { ...fanout, stop: async (o) => (await fanout.stop(o), o?.keepState || config.remove()) } : fanout;
}

/**
 * fanout as `startFanout` runs it, from the bench-only entry `bench/queue-delay/index.ts`: every
 * queue send takes 60 ms longer.
 */
export async function startFanoutWithSlowQueue() {
  const config = configCopy("queue-delay", { main: "bench/queue-delay/index.ts", requestsPer10s: UNLIMITED });
  const configKey = Buffer.alloc(32, 9).toString("base64");
  const fanout = await wranglerDev(
    ROOT,
    [
      "--config",
      config.path,
      "--var",
      `API_KEYS:${BENCH_TENANT}:${BENCH_KEY}`,
      "--var",
      `CONFIG_KEY:${configKey}`,
      "--var",
      "ALLOW_PRIVATE_EGRESS:true",
    ],
    "fanout-slow-queue",
  );
  return { ...fanout, stop: async () => (await fanout.stop(), config.remove()) };
}

/** `count` tenants `many-<k>` with keys `many-key-<k>`: the scenario that spreads chats over tenants. */
export const manyTenants = (count) =>
  Array.from({ length: count }, (_, k) => ({ tenant: `many-${k}`, key: `many-key-${k}` }));

/**
 * fanout as the bench's main instance runs it (its rate limit answering from the isolate, as
 * deployed), with `count` more tenants in `API_KEYS` (a deployment holds about 50 in its 5 KB
 * secret; locally any number fits). Its own instance, so the long key list does not weigh on the
 * other scenarios.
 */
export async function startFanoutWithTenants(count) {
  const config = configCopy("tenants", { requestsPer10s: UNLIMITED, main: "bench/production-limiter/index.ts" });
  const configKey = Buffer.alloc(32, 9).toString("base64");
  const keys = [
    `${BENCH_TENANT}:${BENCH_KEY}`,
    ...manyTenants(count).map(({ tenant, key }) => `${tenant}:${key}`),
  ].join(",");
  const fanout = await wranglerDev(
    ROOT,
    [
      "--config",
      config.path,
      "--var",
      `API_KEYS:${keys}`,
      "--var",
      `CONFIG_KEY:${configKey}`,
      "--var",
      "ALLOW_PRIVATE_EGRESS:true",
      "--var",
      `BENCH_REQUESTS_PER_10S:${UNLIMITED}`,
    ],
    "fanout-tenants",
  );
  return { ...fanout, stop: async () => (await fanout.stop(), config.remove()) };
}

/**
 * The contract floor (bench/spec-floor): the platform floor plus the rules every design must keep
 * (docs/architecture.md#platform-rules).
 */
export function startSpecFloor() {
  return wranglerDev(resolve(ROOT, "bench/spec-floor"), [], "spec-floor");
}

/** The Worker-run floor (bench/worker-floor): the least a design does when its calls wait in queue consumers. */
export function startWorkerFloor() {
  return wranglerDev(resolve(ROOT, "bench/worker-floor"), [], "worker-floor");
}

export async function startFloor() {
  const dir = mkdtempSync(join(tmpdir(), "floor-"));
  cpSync(resolve(ROOT, "../shared/floor"), dir, { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  const floor = await wranglerDev(dir, [], "floor");
  return { ...floor, stop: async () => (await floor.stop(), rmSync(dir, { recursive: true, force: true })) };
}
