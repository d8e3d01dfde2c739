/**
 * The tenant configuration document of `PUT` / `PATCH /v1/config` (docs/api.md#configuration).
 *
 * One zod schema is the single source for validation, defaults, the inferred
 * TypeScript types and the OpenAPI document. Every object is strict: an unknown
 * key is a 400, so a typo never silently falls back to a default.
 */
import { z } from "zod";
import {
  MAX_CONFIG_PATTERN_CHARS,
  patternSteps,
  schemaHazards,
  schemaPatterns,
  unusableSchema,
} from "../json-schema/schema-safety";
import { MAX_CONFIG_PROGRAM } from "../json-schema/linear-patterns";
import {
  MAX_BODY_BYTES,
  MAX_GLOB_CHARS,
  MAX_GLOBS,
  MAX_RESPONSE_BYTES,
  MAX_RETENTION_SECONDS,
  MAX_SECONDS,
  NAME_PATTERN,
} from "./bounds";
import { approvalRulesSchema } from "./approval-rules";
import { budgetSchema } from "../budgets/budget";
import { spendSchema } from "../budgets/spend";
import { flowRuleProblems, flowRulesSchema } from "./flow-rules";

export { NAME_PATTERN };

/** Names a tenant can never give a tool, agent or MCP server: built-ins and Agent Zero's reserved tools. */
export const RESERVED_NAMES = [
  "parallel",
  "wait",
  "http_request",
  "spawn_task",
  "call_subordinate",
  "response",
  "document_query",
  "goal",
  "input",
  "input_remote",
] as const;

const name = (what: string) =>
  z
    .string()
    .regex(NAME_PATTERN, `${what} names must match ${NAME_PATTERN.source}`)
    .refine((n) => !(RESERVED_NAMES as readonly string[]).includes(n), {
      message: `${what} name is reserved; pick another (reserved: ${RESERVED_NAMES.join(", ")})`,
    });

const int = (min: number, max?: number) => {
  const base = z.number().int().min(min);
  return max === undefined ? base : base.max(max);
};

export const limitsSchema = z
  .strictObject({
    max_calls: int(1, 32).default(8).describe("Most tool calls one `parallel` request may start."),
    max_parallel_subagents: int(1, 100).default(5),
    max_subagents_per_tree: int(1, 1000).default(20),
    max_depth: int(0, 5).default(2),
    on_subagent_limit: z.enum(["reject", "queue"]).default("reject"),
    max_queued_subagents: int(0, 1000).default(20),
    max_active_jobs_per_chat: int(1, 10_000).default(64).describe("Pending + running jobs one chat may hold."),
    max_wait_seconds: int(1, 95).default(90).describe("Longest a request waits; below Cloudflare's 100 s idle cutoff."),
    default_timeout_seconds: int(1, MAX_SECONDS)
      .default(300)
      .describe("How long an await waits when `timeout` is omitted."),
    tool_job_timeout_seconds: int(1, MAX_SECONDS).default(600),
    subordinate_job_timeout_seconds: int(1, MAX_SECONDS).default(1800),
    max_job_timeout_seconds: int(1, MAX_SECONDS).default(3600),
    subagent_idle_seconds: int(1, MAX_SECONDS)
      .default(300)
      .describe(
        "A subagent with no progress for this long ends `timeout` (`idle_timeout`); an agent's `idle_seconds` overrides it.",
      ),
    tool_idle_seconds: int(10, 86_400)
      .optional()
      .describe(
        "A tool call that reported progress (an MCP tool's notifications) and then none for this long ends `timeout` (`idle_timeout`) before its deadline.",
      ),
    max_tokens_per_job: int(1, Number.MAX_SAFE_INTEGER).nullable().default(null),
    max_result_chars: int(1, 2_000_000).default(16_000).describe("No stored result is longer than 2,000,000 bytes."),
    max_stored_result_bytes: int(1, 2_000_000).default(1_048_576).describe("Stays under SQLite's 2 MB row limit."),
    max_response_bytes: int(1, MAX_RESPONSE_BYTES).default(1_048_576),
    max_body_bytes: int(1, MAX_BODY_BYTES)
      .default(262_144)
      .describe("At most 640 KiB: a larger body costs more CPU to read than one request may spend."),
    max_job_ids: int(1, 1000).default(64),
    retention_seconds: int(60, MAX_RETENTION_SECONDS).default(604_800),
    max_streams: int(1, 200).default(100).describe("Live streams (WebSockets) the tenant may have open at once."),
    tool_calls_order: z
      .enum(["tiered", "parallel"])
      .default("tiered")
      .describe(
        "/tool-calls: `tiered` runs side-effecting calls one after another after the rest; `parallel` starts every call of a message at once. A request may say `?order=`.",
      ),
    spend: spendSchema
      .optional()
      .describe(
        "What the tenant may spend per UTC day or month across every chat (docs/api.md#spending-limits); at the limit, calls and model requests not yet made end `error`.",
      ),
    budget: budgetSchema
      .default({})
      .describe(
        "What a top-level batch and everything it starts may spend (docs/api.md#budgets); a request may lower it with ?budget=.",
      ),
  })
  .prefault({});

export const toolSchema = z.strictObject({
  name: name("Tool"),
  description: z.string().max(4096).default(""),
  parameters: z.record(z.string(), z.unknown()).default({ type: "object" }),
  url: z.string().url(),
  read_only: z.boolean().default(false).describe("Safe to retry after an ambiguous failure."),
  timeout_seconds: int(1, MAX_SECONDS).optional(),
  secret: z.string().min(1).optional().describe("Signs tool requests (Standard Webhooks); generated when omitted."),
});

export const mcpServerSchema = z.strictObject({
  name: name("MCP server"),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).default({}),
});

const glob = z.string().min(1).max(MAX_GLOB_CHARS, `globs are at most ${MAX_GLOB_CHARS} characters`);

const taskRules = z.union([
  z.array(z.tuple([glob, z.enum(["allow", "deny"])])).max(MAX_GLOBS, `permission.task has at most ${MAX_GLOBS} rules`),
  z
    .record(glob, z.enum(["allow", "deny"]))
    .refine((o) => Object.keys(o).every((k) => !/^\d+$/.test(k)), {
      message:
        "object form of permission.task cannot have integer-like keys (their order is lost); use [[glob, action], …]",
    })
    .refine((o) => Object.keys(o).length <= MAX_GLOBS, { message: `permission.task has at most ${MAX_GLOBS} rules` }),
]);

/** Prices per million tokens: a job's usage gets `cost_usd` (docs/api.md#usage-and-cost). */
const pricesSchema = z.strictObject({
  input_per_million: z.number().min(0).max(1_000_000),
  output_per_million: z.number().min(0).max(1_000_000),
});

export const agentSchema = z.strictObject({
  description: z.string().max(4096).default(""),
  system_prompt: z.string().max(65_536).optional(),
  tools: z
    .array(glob)
    .max(MAX_GLOBS, `an agent's tools list has at most ${MAX_GLOBS} globs`)
    .optional()
    .describe("Globs of tools this agent may call; omitted = all."),
  model: z.string().min(1).optional(),
  prices: pricesSchema.optional().describe("This agent's model's prices, when they differ from `llm.prices`."),
  max_steps: int(1, 1000).default(25),
  idle_seconds: int(1, MAX_SECONDS)
    .optional()
    .describe("This agent's no-progress limit, in place of `limits.subagent_idle_seconds` for its chats."),
  permission: z.strictObject({ task: taskRules.optional() }).optional(),
});

/** Header names as HTTP allows them (RFC 9110 tokens). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** Where a tenant's spans go (docs/api.md#traces); `headers` are secrets, bound to the URL's origin. */
export const telemetrySchema = z.strictObject({
  otlp: z.strictObject({
    url: z
      .string()
      .url()
      .refine((u) => URL.canParse(u) && /\/v1\/traces\/?$/.test(new URL(u).pathname), {
        message:
          "must be the OTLP/HTTP traces endpoint, ending in /v1/traces (e.g. https://api.honeycomb.io/v1/traces)",
      }),
    headers: z
      .record(
        z.string().regex(HEADER_NAME, "header names are HTTP tokens of at most 64 characters"),
        z.string().max(4096),
      )
      .refine((h) => Object.keys(h).length <= 16, { message: "telemetry.otlp has at most 16 headers" })
      .default({}),
    protocol: z.enum(["http/protobuf", "http/json"]).default("http/protobuf"),
  }),
  capture_content: z
    .boolean()
    .default(false)
    .describe("Tool arguments and results and model messages on the spans, redacted and cut to 8 KB each."),
  sample_ratio: z
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe(
      "Share of the traces fanout starts itself that are kept; a caller's sampled traceparent is always followed.",
    ),
});

export const configSchema = z.strictObject({
  tools: z.array(toolSchema).max(256).default([]),
  mcp_servers: z.array(mcpServerSchema).max(32).default([]),
  agents: z.record(name("Agent"), agentSchema).default({}),
  llm: z
    .strictObject({
      base_url: z.string().url(),
      model: z.string().min(1),
      api_key: z.string().min(1).optional(),
      prices: pricesSchema.optional(),
    })
    .nullable()
    .default(null),
  webhook: z
    .strictObject({
      url: z.string().url(),
      secret: z.string().min(1).optional(),
      allowed_callback_origins: z.array(z.string().url()).default([]),
      include_child_chats: z.boolean().default(false),
      events: z
        .array(z.string().min(1).max(MAX_GLOB_CHARS))
        .min(1)
        .max(MAX_GLOBS, `webhook.events has at most ${MAX_GLOBS} globs`)
        .optional()
        .describe(
          'Globs over event types the webhook receives (e.g. ["batch.finished", "job.approval_*"]); omitted: every type. The others are still kept and streamed.',
        ),
    })
    .nullable()
    .default(null),
  telegram: z
    .strictObject({
      bot_token: z.string().min(1),
      api_base_url: z.string().url().default("https://api.telegram.org"),
    })
    .nullable()
    .default(null),
  builtins: z
    .strictObject({
      http_request: z.strictObject({ allowed_origins: z.array(z.string().url()).default([]) }).prefault({}),
    })
    .prefault({}),
  flow: flowRulesSchema
    .default([])
    .describe(
      "Flow rules (docs/api.md#flow-control): how many matching calls run at once and start per period, per key.",
    ),
  approvals: approvalRulesSchema
    .default([])
    .describe("Approval rules (docs/api.md#approvals): which calls wait for a person's decision before they leave."),
  telemetry: telemetrySchema
    .nullable()
    .default(null)
    .describe("OTLP export of the spans of this tenant's work (docs/api.md#traces); null: none is exported."),
  limits: limitsSchema,
});

export type TenantConfig = z.output<typeof configSchema>;
export type TenantConfigInput = z.input<typeof configSchema>;
export type Limits = z.output<typeof limitsSchema>;
export type ToolConfig = z.output<typeof toolSchema>;

export const defaultConfig = (): TenantConfig => configSchema.parse({});

/** Cross-field rules zod objects cannot state alone. Returns the problems, empty when fine. */
export function crossFieldProblems(config: TenantConfig): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const t of config.tools) {
    if (seen.has(t.name)) problems.push(`tools: '${t.name}' is defined twice`);
    seen.add(t.name);
  }
  for (const s of config.mcp_servers) {
    if (seen.has(s.name)) problems.push(`mcp_servers: '${s.name}' clashes with another tool or server name`);
    seen.add(s.name);
    // Models see MCP tools as `<server>__<tool>`: a tenant tool of that form would be ambiguous.
    for (const t of config.tools) {
      if (t.name.startsWith(`${s.name}__`))
        problems.push(`tools: '${t.name}' looks like a tool of MCP server '${s.name}'; rename it`);
    }
  }
  problems.push(...flowRuleProblems(config.flow));
  const l = config.limits;
  let patternText = 0;
  let steps = 0;
  config.tools.forEach((t, i) => {
    steps += patternSteps(t.parameters);
    if (steps > MAX_CONFIG_PROGRAM) return;
    // Hazards first: trying a schema that fans out is itself the stall they guard against.
    const hazards = schemaHazards(t.parameters);
    for (const hazard of hazards) problems.push(`tools[${i}].parameters${hazard}`);
    const problem = hazards.length ? undefined : unusableSchema(t.parameters);
    if (problem) problems.push(`tools[${i}].parameters is not a usable JSON Schema (${problem})`);
    patternText += schemaPatterns(t.parameters).reduce((n, p) => n + p.pattern.length, 0);
  });
  if (patternText > MAX_CONFIG_PATTERN_CHARS) {
    problems.push(
      `tools: ${patternText} characters of schema patterns in all; at most ${MAX_CONFIG_PATTERN_CHARS} are checked`,
    );
  }
  if (steps > MAX_CONFIG_PROGRAM) {
    problems.push(
      `tools: schema patterns of about ${steps} steps in all; at most ${MAX_CONFIG_PROGRAM} are checked, so use fewer or smaller counts`,
    );
  }
  for (const t of config.tools) {
    if (t.timeout_seconds !== undefined && t.timeout_seconds > l.max_job_timeout_seconds) {
      problems.push(
        `tools['${t.name}'].timeout_seconds must be <= limits.max_job_timeout_seconds (${l.max_job_timeout_seconds})`,
      );
    }
  }
  return problems;
}
