#!/usr/bin/env node
// The CLI, built into dist/ when the package is packed (or by `npm ci` in the fanout checkout).
// What stops it is set up first, before the rest loads, so it knows the process that started it.
import { stopSignal } from "../dist/cli/stop.js";

const signal = stopSignal();
const { run } = await import("../dist/cli/main.js");
const readStdin = async () => {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text;
};
process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin,
  signal,
});
