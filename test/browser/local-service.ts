/**
 * The whole service under `wrangler dev` for browser and client tests, with a
 * throwaway state directory, a test key and the bundled fake LLM provider, on
 * free ports. Runs from the repository root whatever the caller's directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { freePort } from "../../scripts/test/processes";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const TENANT = "e2e";
export const KEY = "e2e-local-test-key";
/** A second tenant that never gets a chat: what a new tenant sees. */
export const EMPTY_TENANT_KEY = "e2e-empty-tenant-key";
const CONFIG_KEY = Buffer.alloc(32, 7).toString("base64");
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

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

export interface DevServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * A Worker under `wrangler dev` in `cwd` with `vars`, a throwaway state directory and free ports;
 * resolves once `healthPath` answers 2xx.
 */
export async function startWranglerDev(
  cwd: string,
  vars: Record<string, string>,
  healthPath = "/healthz",
): Promise<DevServer> {
  const [port, inspector] = await Promise.all([freePort(), freePort()]);
  const state = mkdtempSync(join(tmpdir(), "fanout-dev-"));
  const child = spawn(
    "npx",
    [
      "wrangler",
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
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      // wrangler runs workerd under it: end the whole process group.
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 500));
    rmSync(state, { recursive: true, force: true });
  };
  try {
    await until(async () => (await fetch(`${url}${healthPath}`)).ok, 120_000, `wrangler dev in ${cwd}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, stop };
}

export async function startLocalService(): Promise<LocalService> {
  const providerPort = await freePort();
  const provider: ChildProcess = spawn(process.execPath, ["scripts/fake-provider.mjs"], {
    cwd: ROOT,
    env: { ...process.env, FAKE_PROVIDER_PORT: String(providerPort) },
    stdio: "ignore",
  });
  let dev: DevServer;
  try {
    dev = await startWranglerDev(ROOT, {
      API_KEYS: `${TENANT}:${KEY},e2e-empty:${EMPTY_TENANT_KEY}`,
      CONFIG_KEY,
      ALLOW_PRIVATE_EGRESS: "true",
    });
  } catch (e) {
    provider.kill("SIGTERM");
    throw e;
  }
  const { url } = dev;
  return {
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
      provider.kill("SIGTERM");
      await dev.stop();
    },
  };
}
