/**
 * `npm run bot` on a port something else listens on (a developer's own `npm start` on 8787, say):
 * it refuses to start, names the process that holds the port, and sends that service nothing.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startScript } from "../../../../scripts/test/processes";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const state = mkdtempSync(join(tmpdir(), "fanout-bot-taken-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

describe("npm run bot on a taken port", () => {
  it("refuses to start, says which process holds the port, and changes nothing there", async () => {
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200).end("ok");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const held = (other.address() as AddressInfo).port;
    try {
      const ports = {
        BOT_PORT: await freePort(),
        FAKES_PORT: await freePort(),
        FANOUT_INSPECTOR_PORT: await freePort(),
        BOT_INSPECTOR_PORT: await freePort(),
      };
      const env = {
        FANOUT_PORT: String(held),
        ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
        LOCAL_STATE_DIR: state,
      };
      const run = startScript("npm", ["run", "bot"], { cwd: ROOT, env });
      expect(await run.exited).not.toBe(0);
      expect(run.output()).toContain(`could not start: port ${held} (FANOUT_PORT) is in use by pid ${process.pid} (`);
      expect(run.output()).toContain("nothing was started or changed");
      expect(seen).toEqual([]);
    } finally {
      other.close();
    }
  });
});
