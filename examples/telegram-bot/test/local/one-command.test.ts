/**
 * `npm run bot`, as the bot's README tells a person to run it: one command
 * starts the fakes, fanout and the bot, already wired together; the README's
 * Telegram update gets a reply in the fake Telegram, made from two tool calls
 * that fanout ran at the same time; a postcard is asked about with buttons and
 * sent once Approve is pressed; SIGTERM stops everything it started.
 * Ports and state are its env overrides, so a developer's own run is not touched.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  alive,
  descendants,
  freePort,
  killAll,
  listening,
  NOISE,
  startScript,
  within,
} from "../../../../scripts/test/processes";
import { FORECAST_MS, forecast } from "../../../../scripts/fakes/weather.mjs";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const state = mkdtempSync(join(tmpdir(), "fanout-bot-local-"));
let run: ReturnType<typeof startScript> | undefined;
let tree: number[] = [];

afterAll(() => {
  killAll(run?.child, tree);
  rmSync(state, { recursive: true, force: true });
});

interface Sent {
  chat_id: number;
  text: string;
  reply_markup?: unknown;
}

describe("npm run bot", () => {
  it("answers a posted Telegram update through fanout, and stops everything on SIGTERM", async () => {
    const names = ["FANOUT_PORT", "BOT_PORT", "FAKES_PORT", "FANOUT_INSPECTOR_PORT", "BOT_INSPECTOR_PORT"] as const;
    const ports = Object.fromEntries(
      await Promise.all(names.map(async (name) => [name, await freePort()] as const)),
    ) as Record<(typeof names)[number], number>;
    run = startScript("npm", ["run", "bot"], {
      cwd: ROOT,
      env: { ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOCAL_STATE_DIR: state },
    });
    const ready = await within(
      240_000,
      () => run!.output().includes("The example bot is ready") || run!.child.exitCode !== null,
    );
    expect(ready && run.child.exitCode === null, run.output()).toBe(true);
    expect(run.output()).toContain("webhook test: fanout's signed test event reached the bot, which answered 204");

    // The update exactly as the command printed it, with fetch instead of curl.
    const bot = `http://127.0.0.1:${ports.BOT_PORT}`;
    const fakes = `http://127.0.0.1:${ports.FAKES_PORT}`;
    const printed = /-H 'X-Telegram-Bot-Api-Secret-Token: ([^']+)'[\s\S]*?-d '([^']+)'/.exec(run.output());
    expect(printed, run.output()).not.toBeNull();
    expect(run.output()).toContain(`curl -s ${bot}/telegram`);
    expect(run.output()).toContain(`curl -s '${fakes}/__telegram/messages?chat_id=42'`);
    const ack = await fetch(`${bot}/telegram`, {
      method: "POST",
      headers: { "x-telegram-bot-api-secret-token": printed![1]!, "content-type": "application/json" },
      body: printed![2]!,
    });
    expect(ack.status).toBe(200);

    let sent: Sent[] = [];
    const replied = await within(60_000, async () => {
      sent = (await (await fetch(`${fakes}/__telegram/messages?chat_id=42`)).json()) as Sent[];
      return sent.length > 0;
    });
    expect(replied, run.output()).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toContain(forecast("Oslo"));
    expect(sent[0]!.text).toContain(forecast("Lisbon"));
    expect(run.output()).toContain("the bot replied in chat 42");

    // Both calls reached the tool through fanout (signed, so the wiring handed over the tool's
    // secret), and at the same time: the second started before the first one's second was up.
    const calls = (await (await fetch(`${fakes}/__tools/weather/calls`)).json()) as {
      city: string;
      started_at: number;
      ended_at: number;
    }[];
    expect(calls.map((c) => c.city).sort()).toEqual(["Lisbon", "Oslo"]);
    expect(Math.abs(calls[0]!.started_at - calls[1]!.started_at)).toBeLessThan(FORECAST_MS);

    // A call a person approves first, as printed: ask for a postcard, press Approve, and the card goes.
    const updates = [...run.output().matchAll(/-d '(\{"update_id"[^']+)'/g)].map((m) => m[1]!);
    expect(updates, run.output()).toHaveLength(2);
    await fetch(`${bot}/telegram`, {
      method: "POST",
      headers: { "x-telegram-bot-api-secret-token": printed![1]!, "content-type": "application/json" },
      body: updates[1]!,
    });
    const asked = await within(60_000, async () => {
      sent = (await (await fetch(`${fakes}/__telegram/messages?chat_id=42`)).json()) as Sent[];
      return sent.some((m) => m.reply_markup);
    });
    expect(asked, run.output()).toBe(true);
    expect(sent.at(-1)!.text).toMatch(/^The assistant wants to run send_postcard:/);
    expect(await (await fetch(`${fakes}/__tools/postcard/sent`)).json()).toEqual([]);
    const press = /curl -s (\S+\/__telegram\/press) -d '([^']+)'/.exec(run.output());
    expect(press, run.output()).not.toBeNull();
    expect((await (await fetch(press![1]!, { method: "POST", body: press![2]! })).json()).status).toBe(200);
    const posted = await within(60_000, async () => {
      sent = (await (await fetch(`${fakes}/__telegram/messages?chat_id=42`)).json()) as Sent[];
      return sent.some((m) => m.text.includes("Postcard to Ana is on its way."));
    });
    expect(posted, run.output()).toBe(true);
    expect(sent.map((m) => m.text)).toContain("✅ Approved by @tester: send_postcard runs now.");
    expect(await (await fetch(`${fakes}/__tools/postcard/sent`)).json()).toEqual([
      expect.objectContaining({ to: "Ana" }),
    ]);
    expect(run.output()).not.toMatch(NOISE);

    tree = descendants(run.child.pid!);
    expect(tree.length).toBeGreaterThan(4); // npm's shell, the command, two wranglers and their workerds
    process.kill(run.child.pid!, "SIGTERM"); // npm alone, as `kill <pid of npm>` does
    expect(await within(30_000, () => alive(tree).length === 0), `still running: ${alive(tree)}\n${run.output()}`).toBe(
      true,
    );
    for (const [name, port] of Object.entries(ports)) expect(await listening(port), `${name} ${port}`).toBe(false);
  });
});
