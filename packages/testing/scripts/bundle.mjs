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
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(PACKAGE, "..", "..");
const OUT = join(PACKAGE, "worker");

/** The option groups of the worker that a test needs; the rest wrangler lists empty, or are dev-only. */
const KEPT = ["compatibilityDate", "compatibilityFlags", "bindings", "durableObjects", "queueProducers", "queueConsumers", "ratelimits"];

/** How workerd loads each file of the bundle: the entry as a module, the rest as the [[rules]] made them. */
const moduleType = (/** @type {string} */ file) =>
  file === "index.js" ? "ESModule" : file.endsWith(".wasm") ? "CompiledWasm" : file.endsWith(".bin") ? "Data" : "Text";

/** @type {Promise<void> | undefined} */
let building;

/** Builds once per process: vitest runs every project's global setup in its main process, maybe at once. */
export function bundle() {
  building ??= build();
  return building;
}

async function build() {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  const wranglerBin = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  execFileSync(process.execPath, [wranglerBin, "deploy", "--dry-run", "--outdir", OUT], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  // The source map is 3× the bundle and only helps someone debugging fanout itself.
  for (const file of await readdir(OUT)) if (file.endsWith(".map") || file === "README.md") await rm(join(OUT, file));

  const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import(createRequire(join(ROOT, "package.json")).resolve("wrangler"));
  const configPath = join(ROOT, "wrangler.toml");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  // Only the [vars] of wrangler.toml: never a value a developer's .dev.vars may hold.
  const vars = Object.keys(unstable_readConfig({ config: configPath }).vars ?? {});
  const options = Object.fromEntries(KEPT.map((key) => [key, workerOptions[key]]));
  options.bindings = Object.fromEntries(Object.entries(options.bindings ?? {}).filter(([name]) => vars.includes(name)));
  // Listed, not located by rules: Miniflare 5 takes the modules one by one.
  const files = (await readdir(OUT)).filter((file) => file !== "options.json").sort((a, b) => Number(b === "index.js") - Number(a === "index.js"));
  options.modules = files.map((file) => ({ type: moduleType(file), path: file }));
  await writeFile(join(OUT, "options.json"), `${JSON.stringify(options, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await bundle();
