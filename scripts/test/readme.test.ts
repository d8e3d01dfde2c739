/**
 * Every command the README shows, run as pasted: each `sh` block and each
 * inline `npx fanout …`, against a fanout of this test's own (the test kit),
 * with the local service's address, key and ports swapped for the test's. The
 * blocks that start things (`npm start`, `npm run bot`, `npm test`) are run by
 * the tests named beside them instead; a block in neither list fails.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFanout, type TestFanout } from "@fanout/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { freePort } from "./processes";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** Blocks run elsewhere, and by what. */
const ELSEWHERE: Record<string, string> = {
  "npm ci && npm start": "scripts/test/dev.test.ts",
  "npm run bot": "examples/telegram-bot/test/local/one-command.test.ts",
  "npm ci && npm test": ".ci/run",
};

const shBlocks = (markdown: string) => [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
const inlineCli = (markdown: string) =>
  [...new Set([...markdown.matchAll(/`(npx fanout [^`]+)`/g)].map((m) => m[1]!))].filter(
    (c) => c.split(" ").length > 2,
  );

let fanout: TestFanout;
let cwd: string;
let ports: { provider: number; receiver: number };

beforeAll(async () => {
  // A tenant as `npm start` has it: no model, no webhook.
  fanout = await startFanout({ model: false, config: { webhook: null } });
  cwd = mkdtempSync(join(tmpdir(), "fanout-readme-"));
  ports = { provider: await freePort(), receiver: await freePort() };
});
afterAll(async () => {
  await fanout?.stop();
  rmSync(cwd, { recursive: true, force: true });
});

/** The README's text with the test's service, ports and paths in place of the local ones. */
function localised(command: string): string {
  return command
    .replaceAll("http://127.0.0.1:8787", fanout.url)
    .replaceAll("fanout-local-dev-key", fanout.apiKey)
    .replaceAll(
      "node scripts/fake-provider.mjs",
      `FAKE_PROVIDER_PORT=${ports.provider} node ${join(ROOT, "scripts/fake-provider.mjs")}`,
    )
    .replaceAll("127.0.0.1:8790", `127.0.0.1:${ports.provider}`)
    .replaceAll("8791", String(ports.receiver))
    .replaceAll("npx fanout", join(ROOT, "node_modules/.bin/fanout"));
}

/**
 * Runs a block in bash (failing on the first failed command), then stops whatever it left in the
 * background a moment after, so their output is kept too.
 */
function runBlock(
  block: string,
  { lingerMs = 300, killAfterMs = 60_000 }: { lingerMs?: number; killAfterMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `set -eo pipefail\n${localised(block)}`], {
      cwd,
      detached: true,
      env: { ...process.env, FANOUT_URL: fanout.url, FANOUT_API_KEY: fanout.apiKey, NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, name);
      } catch {
        /* gone already */
      }
    };
    // SIGTERM, then SIGKILL for whatever ignored it: nothing of a block outlives its test.
    const stop = () => (signal("SIGTERM"), setTimeout(() => signal("SIGKILL"), 2_000).unref());
    const timer = setTimeout(stop, killAfterMs); // a block that hangs is stopped, and fails on its exit code
    child.on("error", (error) => resolve({ code: -1, output: `${output}\n${error.message}` }));
    // Resolved once the whole group is gone, so the next block finds its ports free.
    const gone = async () => {
      for (let i = 0; i < 50; i++) {
        try {
          process.kill(-child.pid!, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    child.on("exit", (code) => {
      clearTimeout(timer);
      setTimeout(() => {
        stop();
        void gone().then(() => resolve({ code, output }));
      }, lingerMs);
    });
  });
}

/**
 * What the block's comments show it printing (`# {…`, `# received …`): each `"status"`, `"type"` and
 * `"state"` there.
 */
function promised(block: string): string[] {
  const text = block
    .split("\n")
    .filter((l) => /^\s*# (\{|received )/.test(l))
    .join("\n");
  return [...text.matchAll(/"(status|type|state)":("[^"]+"|\d+)/g)].map((m) => `"${m[1]}":${m[2]}`);
}

describe("the README's commands", () => {
  const blocks = shBlocks(README);

  it("are each run here or by the test named for them", () => {
    for (const [block, by] of Object.entries(ELSEWHERE)) {
      expect(blocks, `the README no longer has \`${block}\`: drop it from ELSEWHERE`).toContain(block);
      if (by !== ".ci/run") expect(existsSync(join(ROOT, by)), by).toBe(true);
    }
    expect(blocks.filter((b) => !(b in ELSEWHERE)).length).toBeGreaterThanOrEqual(4);
  });

  for (const block of blocks.filter((b) => !(b in ELSEWHERE))) {
    it(`runs: ${block.split("\n")[0]}`, async () => {
      const { code, output } = await runBlock(block);
      expect(code, output).toBe(0);
      expect(output).not.toMatch(/"status":"error"|command not found|Usage: fanout/);
      for (const promise of promised(block))
        expect(output, `the block's comments promise ${promise}`).toContain(promise);
    });
  }

  it("npx fanout tools, npx fanout webhook test, and npx fanout watch until stopped", async () => {
    expect(inlineCli(README)).toEqual(
      expect.arrayContaining(["npx fanout tools", "npx fanout watch", "npx fanout webhook test"]),
    );
    // The receiver the webhook block configured, up again for `webhook test`.
    const receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve, reject) =>
      receiver.once("error", reject).listen(ports.receiver, "127.0.0.1", resolve),
    );
    onTestFinished(() => void receiver.close());
    for (const command of inlineCli(README)) {
      const long = command.startsWith("npx fanout watch");
      const { code, output } = await runBlock(command, long ? { killAfterMs: 1500 } : { killAfterMs: 30_000 });
      if (!long) expect(code, `${command}: ${output}`).toBe(0);
      expect(output, command).not.toMatch(/error|Usage: fanout/i);
      if (command === "npx fanout tools") expect(output).toMatch(/^parallel\s/m);
    }
  });
});
