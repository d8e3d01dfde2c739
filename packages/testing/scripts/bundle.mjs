#!/usr/bin/env node
// @ts-check
/**
 * Builds what the kit runs: the worker bundle exactly as `wrangler deploy`
 * builds it (`--dry-run --outdir`), and the Miniflare options wrangler derives
 * from wrangler.toml (bindings, Durable Objects, queues, rate limits), into
 * worker/. Run from a checkout of fanout; the published package carries the
 * result, so a bot's project never needs wrangler or this repository.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(PACKAGE, "..", "..");
const OUT = join(PACKAGE, "worker");

/** The option groups of the worker that a test needs; the rest wrangler lists empty, or are dev-only. */
const KEPT = [
  "compatibilityDate",
  "compatibilityFlags",
  "bindings",
  "durableObjects",
  "queueProducers",
  "queueConsumers",
  "ratelimits",
];

/** How workerd loads each file of the bundle: the entry as a module, the rest as the [[rules]] made them. */
const moduleType = (/** @type {string} */ file) =>
  file === "index.js" ? "ESModule" : file.endsWith(".wasm") ? "CompiledWasm" : file.endsWith(".bin") ? "Data" : "Text";

/** What the bundle is built from: a build older than any of them is stale. */
const SOURCES = ["src", "durable-objects", "prompts", "wrangler.toml", "package-lock.json"];
const LOCK = join(PACKAGE, "worker.lock");

/** @type {Promise<void> | undefined} */
let building;

/**
 * Builds the bundle unless it is newer than every source, once per process. Test projects each
 * call it from their global setup, possibly at once and from separate module graphs: a lock
 * directory lets one build while the others wait, and then find it fresh.
 */
export function bundle() {
  building ??= locked(false);
  return building;
}

/** Holds the lock (a directory naming its process) while it builds; `force` builds even a fresh one. */
async function locked(/** @type {boolean} */ force) {
  for (;;) {
    if (!force && (await fresh())) return;
    try {
      await mkdir(LOCK);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
      // Held: wait for it, unless the process that holds it is gone (killed mid-build).
      if (!(await holderAlive())) await rm(LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      await writeFile(join(LOCK, "pid"), String(process.pid));
      if (force || !(await fresh())) await build();
    } finally {
      await rm(LOCK, { recursive: true, force: true });
    }
    return;
  }
}

async function holderAlive() {
  const pid = Number(await readFile(join(LOCK, "pid"), "utf8").catch(() => ""));
  if (!pid) {
    // Just made, its pid not written yet; or left empty by a crash: old means the latter.
    const age = await stat(LOCK).then(
      (s) => Date.now() - s.mtimeMs,
      () => Infinity,
    );
    return age < 10_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === "EPERM";
  }
}

/** The newest modification time under a path (a file, or a folder's files). */
async function newest(/** @type {string} */ path) {
  const info = await stat(path).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = 0;
  for (const entry of await readdir(path)) latest = Math.max(latest, await newest(join(path, entry)));
  return latest;
}

async function fresh() {
  const built = await stat(join(OUT, "options.json")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (!built) return false;
  for (const source of SOURCES) if ((await newest(join(ROOT, source))) > built) return false;
  return true;
}

/** Builds into a folder of its own, then swaps it in, so a reader never finds half a bundle. */
async function build() {
  const next = `${OUT}.next-${process.pid}`;
  await rm(next, { recursive: true, force: true });
  await mkdir(next, { recursive: true });
  await buildInto(next);
  const old = `${OUT}.old-${process.pid}`;
  await rename(OUT, old).catch(() => {});
  await rename(next, OUT);
  await rm(old, { recursive: true, force: true });
}

async function buildInto(/** @type {string} */ dir) {
  const wranglerBin = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  execFileSync(process.execPath, [wranglerBin, "deploy", "--dry-run", "--outdir", dir], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  // The source map is 3× the bundle and only helps someone debugging fanout itself.
  for (const file of await readdir(dir)) if (file.endsWith(".map") || file === "README.md") await rm(join(dir, file));

  const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import(
    createRequire(join(ROOT, "package.json")).resolve("wrangler")
  );
  const configPath = join(ROOT, "wrangler.toml");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  // Only the [vars] of wrangler.toml: never a value a developer's .dev.vars may hold.
  const vars = Object.keys(unstable_readConfig({ config: configPath }).vars ?? {});
  const options = Object.fromEntries(KEPT.map((key) => [key, workerOptions[key]]));
  options.bindings = Object.fromEntries(Object.entries(options.bindings ?? {}).filter(([name]) => vars.includes(name)));
  // Listed, not located by rules: Miniflare 5 takes the modules one by one.
  const files = (await readdir(dir))
    .filter((file) => file !== "options.json")
    .sort((a, b) => Number(b === "index.js") - Number(a === "index.js"));
  options.modules = files.map((file) => ({ type: moduleType(file), path: file }));
  await writeFile(join(dir, "options.json"), `${JSON.stringify(options, null, 2)}\n`);
}

// Run by hand (and by prepack): a fresh build, under the same lock as the tests'.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await locked(true);
