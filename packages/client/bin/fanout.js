#!/usr/bin/env node
// The CLI, built into dist/ by `npm ci` (the package's prepare script).
import { run } from "../dist/cli/main.js";

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
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
  signal: stop.signal,
});
