/**
 * What ends the CLI: Ctrl-C or SIGTERM, or, under `npx fanout`, npm going away: a SIGTERM reaches npm,
 * which ends without passing it on, and the CLI ran on as an orphan holding its event stream open.
 * (Run otherwise, `nohup fanout watch &` outlives its shell as asked.) Once stopped, a command has a
 * moment to finish what it prints; then the process ends whatever is still open.
 */
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;
const PARENT_CHECK_MS = 500;
const GRACE_MS = 2_000;

export function stopSignal(): AbortSignal {
  const stop = new AbortController();
  const parent = process.ppid;
  let code = 0;
  const end = (exitCode: number) => {
    if (stop.signal.aborted) return;
    code = exitCode;
    stop.abort();
    // A command that does not end on the signal (a request in flight) is not waited for long.
    setTimeout(() => process.exit(code), GRACE_MS).unref();
  };
  // 128 + the signal's number, as a shell reports a process a signal ended.
  const codes = { SIGINT: 130, SIGTERM: 143 };
  for (const name of STOP_SIGNALS) process.once(name, () => end(codes[name]));
  // npm sets npm_command for what it runs: `exec` for npx.
  if (process.env.npm_command === "exec") {
    const watchParent = setInterval(() => {
      if (process.ppid !== parent) end(143);
    }, PARENT_CHECK_MS);
    watchParent.unref();
  }
  return stop.signal;
}
