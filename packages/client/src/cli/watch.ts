/**
 * `fanout watch`: the live stream in a terminal. On a TTY a block at the
 * bottom shows the running jobs and how long each has run, redrawn ten times a
 * second, with a line above it for every job and batch that ends; elsewhere
 * only those lines; with --json one event per line.
 */
import type { Fanout } from "../client.js";
import type { StreamMessage } from "../events.js";
import type { FanoutEvent } from "../types.js";
import { eventLine, progressLines, track, type RunningJob } from "./format.js";

export interface WatchOptions {
  json: boolean;
  out: { write(text: string): unknown; isTTY?: boolean };
  signal?: AbortSignal;
}

const REDRAW_MS = 100;

export async function watch(fanout: Fanout, chatId: string | null, o: WatchOptions): Promise<void> {
  const stream = await fanout.events(chatId, { signal: o.signal });
  const tty = o.out.isTTY === true && !o.json;
  let running: RunningJob[] = [];
  let drawn = 0;
  // Moves up over the last block, clears it, and draws the current one.
  const paint = (above: string[] = []) => {
    if (!tty) {
      for (const l of above) o.out.write(`${l}\n`);
      return;
    }
    const block = progressLines(running, Date.now());
    o.out.write(`${"\x1b[1A\x1b[2K".repeat(drawn)}\r${[...above, ...block].map((l) => `${l}\n`).join("")}`);
    drawn = block.length;
  };
  const timer = tty ? setInterval(() => paint(), REDRAW_MS) : undefined;
  try {
    for await (const message of stream) {
      if (o.json) {
        o.out.write(`${JSON.stringify(message)}\n`);
        continue;
      }
      const line = describe(message);
      if ("data" in message) running = track(running, message as FanoutEvent);
      paint(line ? [line] : []);
    }
  } finally {
    clearInterval(timer);
    stream.close();
  }
}

function describe(message: StreamMessage): string | undefined {
  if (message.type === "cursor.expired")
    return "… some events were missed and are gone: `fanout jobs` shows the current state";
  return eventLine(message as FanoutEvent);
}
