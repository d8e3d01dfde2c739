#!/usr/bin/env node
/**
 * `npm start`: the whole service locally under `wrangler dev` (embedded SQLite,
 * Queues and alarms), with a local-only dev key. These values exist only on
 * this command line; wrangler.toml gives a deployed worker no key at all.
 */
import { spawn } from "node:child_process";
// Shared with the CLI, which talks to this service when FANOUT_URL is unset (Node 22 strips the types).
import { LOCAL_KEY, LOCAL_PORT, LOCAL_TENANT } from "../packages/client/src/local.ts";

const PORT = process.env.PORT ?? String(LOCAL_PORT);
export const DEV_TENANT = LOCAL_TENANT;
export const DEV_KEY = LOCAL_KEY;
// 32 bytes of "fanout-local-dev-config-key-0001", base64: local only.
const DEV_CONFIG_KEY = Buffer.from("fanout-local-dev-config-key-0001").toString("base64");

const url = `http://127.0.0.1:${PORT}`;
const curl = [
  `curl -s ${url}/v1/chats/demo/parallel \\`,
  `  -H 'Authorization: Bearer ${DEV_KEY}' \\`,
  `  -d '{"tool_calls":[{"tool_name":"wait","tool_args":{"seconds":1}},{"tool_name":"wait","tool_args":{"seconds":2}}]}'`,
].join("\n");

console.log(`fanout starting at ${url}
  dev API key (local only): ${DEV_KEY}   (tenant "${DEV_TENANT}")
  try, once it is ready:
${curl}
`);

const child = spawn(
  "npx",
  [
    "wrangler", "dev", "--ip", "127.0.0.1", "--port", PORT, "--show-interactive-dev-session=false",
    "--var", `API_KEYS:${DEV_TENANT}:${DEV_KEY}`,
    "--var", `CONFIG_KEY:${DEV_CONFIG_KEY}`,
    "--var", "ALLOW_PRIVATE_EGRESS:true",
  ],
  { stdio: "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
);
child.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
