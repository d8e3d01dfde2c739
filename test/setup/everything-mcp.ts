/**
 * The MCP project's own reference server, `@modelcontextprotocol/server-everything`,
 * in its Streamable HTTP mode: a third-party server with sessions, SSE answers and
 * progress notifications, where fake-mcp.ts is our own stateless JSON one. It
 * runs as a child process (`node dist/index.js streamableHttp`, port from `PORT`;
 * it serves `/mcp`). It binds every interface itself; tests reach it on 127.0.0.1.
 * Tools used: `echo`, `get-sum`, `get-tiny-image`, `trigger-long-running-operation`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

const START_TIMEOUT_MS = 15_000;

/** A port nothing listens on right now (the server takes it a moment later; a clash is retried). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        address && typeof address === "object" ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });

function entryPoint(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
}

/** Starts the server once; resolves when it listens, fails with its own output when it does not. */
function startOnce(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [entryPoint(), "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`server-everything did not start within ${START_TIMEOUT_MS} ms: ${output}`)),
      START_TIMEOUT_MS,
    );
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      reject(e);
    };
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`server-everything exited with ${code}: ${output}`)));
  });
}

/** The server's MCP URL, and how to stop it. */
export async function startEverythingMcp(): Promise<{ url: string; stop(): Promise<void> }> {
  let lastError: unknown;
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    try {
      const child = await startOnce(port);
      child.stderr!.resume(); // keep draining its log so it never blocks on a full pipe
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      };
    } catch (e) {
      lastError = e; // most likely the port was taken meanwhile
    }
  }
  throw lastError;
}
