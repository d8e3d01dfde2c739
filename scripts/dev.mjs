#!/usr/bin/env node
// @ts-check
/**
 * `npm start`: the whole service locally under `wrangler dev` (embedded SQLite,
 * Queues and alarms), with a local-only dev key. These values exist only on
 * this command line; wrangler.toml gives a deployed worker no key at all.
 * Ctrl-C or SIGTERM stops wrangler and workerd too (scripts/wrangler-dev.mjs).
 */
import { fileURLToPath } from "node:url";
import { takenPort } from "./ports.mjs";
import { startWranglerDev, stopGroups, stopOnSignals } from "./wrangler-dev.mjs";
// Shared with the CLI, which talks to this service when FANOUT_URL is unset (Node 22 strips the types).
import { LOCAL_KEY, LOCAL_PORT, LOCAL_TENANT } from "../packages/client/src/local.ts";

export const DEV_TENANT = LOCAL_TENANT;
export const DEV_KEY = LOCAL_KEY;
// 32 bytes of "fanout-local-dev-config-key-0001", base64: local only.
export const DEV_CONFIG_KEY = Buffer.from("fanout-local-dev-config-key-0001").toString("base64");
/** The `--var`s that make a local fanout usable: the dev key, a dev CONFIG_KEY, local egress. */
export const DEV_VARS = {
  API_KEYS: `${DEV_TENANT}:${DEV_KEY}`,
  CONFIG_KEY: DEV_CONFIG_KEY,
  ALLOW_PRIVATE_EGRESS: "true",
};
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * What to paste once it is ready: two jobs started without waiting, then an await on the ids the
 * first answer gave (taken out with grep, since jq is not everywhere).
 */
export function tryIt(/** @type {string} */ url) {
  const call = `curl -s ${url}/v1/chats/demo/parallel -H 'Authorization: Bearer ${DEV_KEY}'`;
  return [
    `ids=$(${call} \\`,
    `  -d '{"tool_calls":[{"tool_name":"wait","tool_args":{"seconds":1}},{"tool_name":"wait","tool_args":{"seconds":2}}],"wait":false}' \\`,
    `  | grep -o '"job_id":"[^"]*"' | cut -d'"' -f4 | sed 's/.*/"&"/' | paste -sd, -)`,
    `${call} -d "{\\"action\\":\\"await\\",\\"job_ids\\":[$ids]}"`,
  ].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const port = Number(process.env.PORT ?? LOCAL_PORT);
  const inspectorPort = process.env.INSPECTOR_PORT ? Number(process.env.INSPECTOR_PORT) : undefined;
  const url = `http://127.0.0.1:${port}`;
  // wrangler would say only "Address already in use" and advise its own --port flag, which
  // `npm start` does not pass on: name the process holding the port and this script's knob.
  const taken = await takenPort({
    PORT: port,
    ...(inspectorPort !== undefined ? { INSPECTOR_PORT: inspectorPort } : {}),
  });
  if (taken) {
    console.error(
      `fanout could not start: port ${taken.port} is in use${taken.holder ? ` by ${taken.holder}` : ""}. ` +
        `Stop that process, or start fanout on a free port with ${taken.name}, e.g. ${taken.name}=${taken.port + 1} npm start` +
        (taken.name === "PORT" ? ` (and FANOUT_URL=http://127.0.0.1:${taken.port + 1} for the CLI).` : "."),
    );
    process.exit(1);
  }
  console.log(`fanout starting at ${url}
  dev API key (local only): ${DEV_KEY}   (tenant "${DEV_TENANT}")
  try, once it is ready (two jobs without waiting, then an await on the ids they got):
${tryIt(url)}
`);
  const wrangler = startWranglerDev({
    cwd: ROOT,
    port,
    inspectorPort,
    persistTo: process.env.PERSIST_TO,
    vars: DEV_VARS,
  });
  let stopping = false;
  stopOnSignals([wrangler], () => {
    stopping = true;
    return stopGroups([wrangler]);
  });
  wrangler.on("exit", (code, signal) => {
    if (stopping) return;
    // wrangler ended by itself: make sure nothing of its group is left holding the port.
    void stopGroups([wrangler]).then(() => process.exit(code ?? (signal ? 1 : 0)));
  });
}
