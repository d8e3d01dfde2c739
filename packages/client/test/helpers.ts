/** Shared by the client and CLI tests: the service's address and a tenant configured for them. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import type { CliIo } from "../src/cli/io.js";
import { run } from "../src/cli/main.js";
import { Fanout, type FanoutOptions } from "../src/index.js";

export const url = () => inject("fanoutUrl");
export const key = () => inject("fanoutKey");

export const client = (more: Partial<FanoutOptions> = {}) => new Fanout({ url: url(), apiKey: key(), ...more });

/** Replaces the tenant's configuration (test files run one after another: see vitest.config.ts). */
export async function configure(config: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url()}/v1/config`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key()}`, "content-type": "application/json" },
    body: JSON.stringify(config),
  });
  if (!res.ok) throw new Error(`config: ${res.status} ${await res.text()}`);
}

export const wait = (seconds: number) => ({ tool_name: "wait", tool_args: { seconds } });

/** A chat id of its own per test, so tests never see each other's jobs. */
export const chat = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

/** Runs the CLI in-process against the test service and captures what it prints. */
export async function runCli(argv: string[], more: Partial<CliIo> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    env: { FANOUT_URL: url(), FANOUT_API_KEY: key() },
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    readStdin: async () => "",
    ...more,
  });
  return { code, stdout, stderr };
}

/** `value` as a JSON file in a fresh temp folder, for commands that read a file. */
export async function jsonFile(value: unknown, name = "input.json"): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "fanout-test-")), name);
  await writeFile(path, JSON.stringify(value));
  return path;
}
