/**
 * `npm ci` on the machine's own Node 20, as the README's first command runs:
 * the tools that need Node 22 run on the `node` devDependency, so npm's ~85
 * lines of EBADENGINE about them are noise, and .npmrc keeps them off the
 * first screen. A dry run reads the same engines as the install.
 */
import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { machineNode } from "../../packages/client/test/packed.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const NODE_20 = machineNode(20);

/** npm as a person on this machine runs it: Node 20 first on PATH, nothing of node_modules on it. */
async function npm20(...args: string[]) {
  const path = [
    dirname(NODE_20!),
    ...(process.env.PATH ?? "").split(":").filter((d) => !d.includes("node_modules")),
  ].join(":");
  const { stdout, stderr } = await promisify(execFile)("npm", args, { cwd: ROOT, env: { ...process.env, PATH: path } });
  return `${stdout}${stderr}`;
}

describe("npm on Node 20", () => {
  it("installs without a screen of engine warnings, which npm would print but for .npmrc", async (ctx) => {
    if (!NODE_20) {
      if (process.env.CI) throw new Error("no Node 20 on this machine: CI needs it for this test");
      return ctx.skip("no Node 20 found outside node_modules");
    }
    const output = await npm20("install", "--dry-run", "--no-audit", "--no-fund");
    expect(output).not.toMatch(/EBADENGINE|npm warn/);
  });
});
