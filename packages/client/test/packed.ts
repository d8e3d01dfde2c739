/**
 * The package as someone outside this repository gets it: built and packed
 * like `npm pack` (into a staging copy, so the workspace's own dist/ that the
 * example bot's tests read is never rewritten under them), then installed with
 * the machine's npm into a fresh project in a temp directory.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

/**
 * The machine's own Node of a major version, by absolute path: npm scripts put the `node`
 * devDependency (Node 22) first on PATH, so the directories under node_modules are passed over.
 */
export function machineNode(major: number): string | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((d) => d && !d.includes("node_modules"));
  for (const candidate of [...dirs.map((d) => join(d, "node")), "/usr/bin/node", "/usr/local/bin/node"]) {
    if (!existsSync(candidate)) continue;
    try {
      if (execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim().startsWith(`v${major}.`))
        return candidate;
    } catch {
      // not a runnable node
    }
  }
  return undefined;
}

/** npm as the machine has it beside that node (what a user on it would run), else the npm on PATH. */
function npm(node: string): [string, string[]] {
  const cli = join(dirname(node), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
  return existsSync(cli) ? [node, [cli]] : ["npm", []];
}

/** Builds dist/ into a staging copy of the package and packs that; answers the tarball's path. */
export async function pack(into: string): Promise<string> {
  const stage = join(into, "stage");
  await mkdir(stage, { recursive: true });
  for (const entry of ["package.json", "bin", "openapi.json"])
    await cp(join(PACKAGE, entry), join(stage, entry), { recursive: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  await run(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", join(stage, "dist")], { cwd: PACKAGE });
  // dist/ is built already: the package's prepare script (the same tsc) need not run again.
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", into], {
    cwd: stage,
  });
  return join(into, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
}

/** A fresh project with the tarball installed by `node`'s npm, as a user would install it; and npm's warnings. */
export async function installInFreshProject(tarball: string, node: string): Promise<{ app: string; warnings: string }> {
  const app = await mkdtemp(join(tmpdir(), "fanout-client-user-"));
  await writeFile(
    join(app, "package.json"),
    JSON.stringify({ name: "fanout-client-user", private: true, type: "module" }),
  );
  const [command, args] = npm(node);
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH}` };
  const { stderr } = await run(command, [...args, "install", "--no-audit", "--no-fund", tarball], { cwd: app, env });
  return { app, warnings: stderr };
}

export const tempDir = () => mkdtemp(join(tmpdir(), "fanout-client-pack-"));
