/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against fanout's MCP
 * endpoint under `wrangler dev`: the server scenarios that apply to a stateless tool server. The
 * suite sends no auth header, so it speaks through a local proxy that adds the key, as a gateway
 * in front of fanout would.
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, chat, mcpUrl, startKit } from "./fanout";

const SUITE = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url),
);

/** The scenarios of a stateless tool server; docs/mcp.md lists the others and why they do not apply. */
const SCENARIOS = ["server-initialize", "ping", "tools-list"];

let kit: Awaited<ReturnType<typeof startKit>>;
let proxy: Server;
let proxyUrl = "";

beforeAll(async () => {
  kit = await startKit({
    search: { description: "Search the catalogue.", read_only: true, run: ({ q }: { q?: string }) => `found ${q}` },
  });
  const target = mcpUrl(chat("conformance"));
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers.set(name, value);
    for (const [name, value] of Object.entries(auth())) headers.set(name, value);
    const answer = await fetch(target, {
      method: req.method,
      headers,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await kit?.close();
});

/** Runs one scenario against `url`; answers the suite's exit code and its tally of checks. */
async function runScenario(scenario: string, url = proxyUrl) {
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [SUITE, "server", "--url", url, "--scenario", scenario],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its report
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const tally = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(plain);
  if (!tally) throw new Error(`the suite printed no tally (exit ${code}):\n${plain}`);
  return { code, passed: Number(tally[1]), total: Number(tally[2]), failed: Number(tally[3]), output: plain };
}

describe("the MCP conformance suite", () => {
  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const run = await runScenario(scenario);
      expect(run.total, run.output).toBeGreaterThan(0);
      expect(run.failed, run.output).toBe(0);
      expect(run.passed).toBe(run.total);
      expect(run.code).toBe(0);
    });
  }

  it("fails a scenario without the key, so a pass above means the endpoint passed", async () => {
    const run = await runScenario("server-initialize", mcpUrl(chat("conformance-no-key")));
    expect(run.failed).toBeGreaterThan(0);
    expect(run.code).not.toBe(0);
  });
});
