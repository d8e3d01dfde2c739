/**
 * The whole service under `wrangler dev` for browser and client tests, with a
 * throwaway state directory, a test key and the bundled fake LLM provider, on
 * free ports. Runs from the repository root whatever the caller's directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const TENANT = "e2e";
export const KEY = "e2e-local-test-key";
const CONFIG_KEY = Buffer.alloc(32, 7).toString("base64");
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(probe: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s`);
}

export interface LocalService {
  url: string;
  providerUrl: string;
  api(path: string, body?: unknown, method?: string): Promise<any>;
  stop(): Promise<void>;
}

export async function startLocalService(): Promise<LocalService> {
  const [port, inspector, providerPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const state = mkdtempSync(join(tmpdir(), "fanout-e2e-"));
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", FAKE_PROVIDER_PORT: String(providerPort) };
  const children: ChildProcess[] = [
    spawn(process.execPath, ["scripts/fake-provider.mjs"], { cwd: ROOT, env, stdio: "ignore" }),
    spawn(
      "npx",
      [
        "wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector),
        "--persist-to", state, "--show-interactive-dev-session=false",
        "--var", `API_KEYS:${TENANT}:${KEY}`, "--var", `CONFIG_KEY:${CONFIG_KEY}`, "--var", "ALLOW_PRIVATE_EGRESS:true",
      ],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "inherit"], detached: true },
    ),
  ];
  const url = `http://127.0.0.1:${port}`;
  const service: LocalService = {
    url,
    providerUrl: `http://127.0.0.1:${providerPort}/v1`,
    async api(path, body, method) {
      const res = await fetch(`${url}${path}`, {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
    async stop() {
      for (const child of children) {
        try {
          // wrangler runs workerd under it: end the whole process group.
          if (child.pid && child.spawnargs.includes("dev")) process.kill(-child.pid, "SIGTERM");
          else child.kill("SIGTERM");
        } catch {
          /* already gone */
        }
      }
      await new Promise((r) => setTimeout(r, 500));
      rmSync(state, { recursive: true, force: true });
    },
  };
  try {
    await until(async () => (await fetch(`${url}/healthz`)).ok, 120_000, "wrangler dev");
  } catch (e) {
    await service.stop();
    throw e;
  }
  return service;
}
