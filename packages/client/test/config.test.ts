/**
 * The configuration from the client (`config`, `patchConfig`, `putConfig`)
 * and the CLI (`fanout config get|patch|put`), against the service under
 * `wrangler dev`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { USAGE } from "../src/cli/main.js";
import { CONFIG_USAGE } from "../src/cli/config.js";
import { FanoutError } from "../src/index.js";
import { client, configure, jsonFile, runCli } from "./helpers.js";

const LLM = { base_url: "https://llm.example/v1", model: "m", api_key: "sk-client-test" };
const TOOL = { name: "search", url: "https://tools.example/search", secret: "whsec_c2VhcmNoLXNlY3JldA==" };

beforeEach(() => configure({ tools: [TOOL], llm: LLM, limits: { max_wait_seconds: 1 } }));

/** A fetch that notes each request's method and Content-Type, and can fail the first `failures` of them. */
function watched(failures = 0) {
  const seen: { method: string; type: string | null }[] = [];
  const fetcher = async (request: Request) => {
    seen.push({ method: request.method, type: request.headers.get("content-type") });
    if (seen.length <= failures) throw new TypeError("fetch failed");
    return fetch(request);
  };
  return { seen, fetcher };
}

describe("client", () => {
  it("config() reads the document with secrets shown as ***", async () => {
    const config = await client().config();
    expect(config.llm).toEqual({ ...LLM, api_key: "***" });
    expect(config.tools[0]).toMatchObject({ name: "search", secret: "***" });
    expect(config.limits.max_calls).toBe(8);
  });

  it("patchConfig sends a merge patch: only the named keys change, generated secrets come back by name", async () => {
    const { seen, fetcher } = watched();
    const answer = await client({ fetch: fetcher }).patchConfig({
      webhook: { url: "https://bot.example/fanout" },
      limits: { max_calls: 4 },
    });
    expect(seen).toEqual([{ method: "PATCH", type: "application/merge-patch+json" }]);
    expect(answer.llm).toEqual({ ...LLM, api_key: "***" });
    expect(answer.tools.map((t) => t.name)).toEqual(["search"]);
    expect(answer.limits).toMatchObject({ max_calls: 4, max_wait_seconds: 1 });
    expect(Object.keys(answer.generated_secrets)).toEqual(["webhook.secret"]);
    expect(answer.generated_secrets["webhook.secret"]).toMatch(/^whsec_/);
    const { generated_secrets: _, ...document } = answer;
    expect(await client().config()).toEqual(document);
  });

  it("patchConfig throws the refusal with its code, and is never sent twice", async () => {
    const error = await client()
      .patchConfig({ llm: { base_url: "not a url" } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(FanoutError);
    expect(error).toMatchObject({ status: 400, code: "invalid_config" });
    const { seen, fetcher } = watched(1);
    const lost = await client({ fetch: fetcher })
      .patchConfig({ limits: { max_calls: 3 } })
      .catch((e) => e);
    expect(lost).toMatchObject({ code: "network_error" });
    expect(seen).toHaveLength(1);
    expect((await client().config()).limits.max_calls).toBe(8);
  });

  it("putConfig replaces the whole document (and is repeated when no answer came)", async () => {
    const { seen, fetcher } = watched(1);
    const answer = await client({ fetch: fetcher }).putConfig({
      tools: [{ name: "fresh", url: "https://tools.example/fresh" }],
    });
    expect(seen.map((s) => s.method)).toEqual(["PUT", "PUT"]);
    expect(answer.llm).toBeNull();
    expect(answer.limits.max_wait_seconds).toBe(90);
    expect(Object.keys(answer.generated_secrets)).toEqual(["tools.fresh.secret"]);
  });
});

const fanout = (argv: string[], stdin = "") => runCli(argv, { readStdin: async () => stdin });

const file = (value: unknown) => jsonFile(value, "config.json");

describe("fanout config", () => {
  it("get prints the document, indented for people and as one line with --json", async () => {
    const shown = await fanout(["config", "get"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('\n  "llm": {\n    "base_url": "https://llm.example/v1",');
    expect(JSON.parse(shown.stdout)).toEqual(await client().config());
    const json = await fanout(["config", "get", "--json"]);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(json.stdout).tools[0].secret).toBe("***");
  });

  it("patch takes inline JSON, prints the new document, and shows generated secrets once with a line to store them", async () => {
    const { code, stdout } = await fanout([
      "config",
      "patch",
      '{"webhook":{"url":"https://bot.example/fanout"},"llm":{"model":"m2"}}',
    ]);
    expect(code).toBe(0);
    const [document, secrets] = stdout.split("\n\nGenerated secrets");
    expect(JSON.parse(document!)).toMatchObject({
      llm: { model: "m2", base_url: LLM.base_url },
      webhook: { url: "https://bot.example/fanout" },
    });
    expect(secrets).toMatch(/^, shown only this once: store them now/);
    expect(secrets).toMatch(/\n {2}webhook\.secret {2}whsec_\S+\n$/);
    expect((await fanout(["config", "patch", '{"limits":{"max_calls":5}}'])).stdout).not.toContain("Generated secrets");
  });

  it("patch reads a file or standard input; --json prints the answer as it is and the reminder on stderr", async () => {
    expect((await fanout(["config", "patch", await file({ agents: { boss: { max_steps: 3 } } })])).code).toBe(0);
    const { code, stdout, stderr } = await fanout(
      ["config", "patch", "-", "--json"],
      JSON.stringify({ tools: [{ name: "new", url: "https://t.example/n" }, TOOL] }),
    );
    expect(code).toBe(0);
    const answer = JSON.parse(stdout);
    expect(Object.keys(answer.generated_secrets)).toEqual(["tools.new.secret"]);
    expect(answer.agents.boss.max_steps).toBe(3);
    expect(stderr).toContain("generated_secrets are shown only in this answer: store them now");
  });

  it("put replaces the whole document", async () => {
    const { code, stdout } = await fanout(
      ["config", "put", "-", "--json"],
      JSON.stringify({ limits: { max_calls: 2 } }),
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ llm: null, tools: [], limits: { max_calls: 2 }, generated_secrets: {} });
  });

  it("says what is wrong with the command line (exit 2) and prints fanout's refusal (exit 1)", async () => {
    expect(await fanout(["config"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("say what to do with the configuration"),
    });
    expect(await fanout(["config", "drop"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unknown config command 'drop'"),
    });
    expect(await fanout(["config", "patch"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("name a file, - for standard input"),
    });
    expect(await fanout(["config", "patch", "[1]"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("the JSON given must hold a JSON object"),
    });
    expect(await fanout(["config", "patch", "{nope"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("the JSON given is not JSON"),
    });
    expect(await fanout(["config", "put", "/nonexistent.json"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("cannot read /nonexistent.json"),
    });
    expect((await fanout(["config", "get", "extra"])).stderr).toContain(CONFIG_USAGE);
    const refused = await fanout(["config", "patch", '{"limits":{"max_cals":1}}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^fanout: invalid_config: Configuration rejected: limits: Unrecognized key: "max_cals"/,
    );
    expect(USAGE).toContain(CONFIG_USAGE);
  });
});
