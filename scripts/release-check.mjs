#!/usr/bin/env node
// @ts-check
/**
 * `npm run release:check`: what `npm publish` would send for each package,
 * without sending it. Each dry run must be clean (no warning but the one about
 * not being logged in) and its tarball must hold what a user's install needs;
 * the tarballs are left in .ci/packages/ for anyone to install before a release.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const PACKAGES = {
  "@fanout/client": [
    "package.json",
    "README.md",
    "LICENSE",
    "dist/index.js",
    "dist/index.d.ts",
    "bin/fanout.js",
    "openapi.json",
  ],
  "@fanout/testing": [
    "package.json",
    "README.md",
    "LICENSE",
    "dist/index.js",
    "dist/index.d.ts",
    "worker/index.js",
    "worker/options.json",
  ],
};

/** A dry run always warns that nobody is logged in; any other warning is a problem to fix before a release. */
const EXPECTED = /requires you to be logged in/;

/**
 * What is wrong with one package's dry run: npm's warnings, and the files its tarball lacks.
 * @param {string} name
 * @param {string} stderr npm's own output of the dry run
 * @param {string[]} files the tarball's paths
 */
export function releaseProblems(name, stderr, files) {
  const warnings = stderr.split("\n").filter((line) => /^npm (warn|error)/i.test(line) && !EXPECTED.test(line));
  const required = PACKAGES[/** @type {keyof typeof PACKAGES} */ (name)] ?? [];
  const missing = required.filter((file) => !files.includes(file));
  return [...warnings.map((w) => `${name}: ${w}`), ...missing.map((file) => `${name}: the tarball has no ${file}`)];
}

/** npm in the repository's root: its output, whatever its exit code (a failure is one more warning line). */
function npm(/** @type {string} */ root, /** @type {string[]} */ args) {
  // .npmrc keeps installs quiet (loglevel=error); here npm's warnings are the point.
  const result = spawnSync("npm", ["--loglevel=warn", ...args], { cwd: root, encoding: "utf8" });
  const failed = result.status === 0 ? "" : `\nnpm error: npm ${args.join(" ")} exited ${result.status}`;
  return { stdout: result.stdout, stderr: `${result.stderr}${failed}` };
}

/**
 * The tarball's paths from `npm publish/pack --json`, which answers a list (pack) or an object by name
 * (publish -w).
 */
function tarballFiles(/** @type {string} */ name, /** @type {string} */ stdout) {
  let parsed;
  try {
    parsed = JSON.parse(stdout || "[]");
  } catch {
    return []; // npm failed before its listing (a prepare script's errors on stdout): the missing files say so
  }
  const entry = Array.isArray(parsed) ? parsed[0] : (parsed[name] ?? parsed);
  return (entry?.files ?? []).map((/** @type {{ path: string }} */ f) => f.path);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const out = `${root}.ci/packages`;
  mkdirSync(out, { recursive: true });
  const problems = [];
  for (const name of Object.keys(PACKAGES)) {
    const published = npm(root, ["publish", "--dry-run", "--json", "-w", name]);
    problems.push(...releaseProblems(name, published.stderr, tarballFiles(name, published.stdout)));
    // The dry run built everything already (prepare, prepack): the pack only packs.
    const packed = npm(root, ["pack", "--json", "--ignore-scripts", "-w", name, "--pack-destination", out]);
    problems.push(...releaseProblems(name, packed.stderr, tarballFiles(name, packed.stdout)));
  }
  if (problems.length) {
    console.error(`Not ready to publish:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log(`Both packages would publish cleanly; their tarballs are in .ci/packages/.`);
}
