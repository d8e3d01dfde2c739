// @ts-check
/**
 * Whether a local port is free, and which process holds it when not: scripts that start services on
 * fixed ports (`npm run bot`) refuse to start on a taken one instead of talking to whatever answers
 * there (it could be a developer's own `npm start`, whose config they would then change).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

/** True when nothing listens on 127.0.0.1:`port`. @param {number} port */
export function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * The process listening on `port`, as `pid 1234 (node …/wrangler.js dev)`, read from /proc (Linux);
 * undefined when it cannot be told (another OS, another user's process).
 * @param {number} port
 */
export function portHolder(port) {
  try {
    const hex = port.toString(16).toUpperCase().padStart(4, "0");
    const inodes = new Set();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
        const cols = line.trim().split(/\s+/);
        // local address "0100007F:1F90", state 0A (LISTEN), inode in column 10
        if (cols[1]?.endsWith(`:${hex}`) && cols[3] === "0A") inodes.add(cols[9]);
      }
    }
    if (inodes.size === 0) return undefined;
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      let fds;
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // gone, or not ours to read
      }
      for (const fd of fds) {
        let target = "";
        try {
          target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) {
          const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
          return `pid ${pid} (${command.length > 120 ? `${command.slice(0, 119)}…` : command})`;
        }
      }
    }
  } catch {
    /* no /proc: the caller says the port is taken, without naming who */
  }
  return undefined;
}

/**
 * The first of `ports` (name → port) that is taken, with who holds it, or undefined when all are free.
 * @param {Record<string, number>} ports
 * @returns {Promise<{ name: string, port: number, holder: string | undefined } | undefined>}
 */
export async function takenPort(ports) {
  for (const [name, port] of Object.entries(ports)) {
    if (!(await portFree(port))) return { name, port, holder: portHolder(port) };
  }
  return undefined;
}
