/**
 * What `/parallel`, `/spawn` and `/tool-calls` share of a request, read once (docs/api.md#the-parallel-route):
 * the chat, the tenant's configuration and the limits a chat applies from it, the body, the calling
 * agent and its policy, the delivery options and request metadata, the batch's budget, the tools
 * its calls may use with the request's pattern meter, and the fields every batch message carries
 * to the chat (with the `Idempotency-Key` checked and fingerprinted). Each route reads what is
 * particular to it (a `parallel` command, a spawn, a message's calls) between the two.
 */
import type { Context } from "hono";
import type { AppEnv } from "../auth/app-env";
import { MAX_BODY_BYTES } from "../../core/config/bounds";
import { chatLimits } from "../../core/config/chat-limits";
import type { TenantConfig } from "../../core/config/schema";
import { orderedRules } from "../../core/agents/permission";
import { profile } from "../../core/agents/profiles";
import { ApiError } from "../../core/http/errors";
import { readJsonBody } from "../../core/http/json-body";
import type { SpecContext } from "../../core/jobs/job-spec";
import type { Caller, StartFields } from "../../core/jobs/messages";
import { PatternMeter } from "../../core/json-schema/linear-patterns";
import { toolsForAgent } from "../../core/tools/catalog";
import { serversNamedIn } from "../../core/tools/mcp";
import { loadMcpListings } from "../../core/tools/mcp-listings";
import { callerAgent, chatIdParam, chatStub, configCheckOf, tenantConfig, tenantStub } from "./context";
import { deliveryOptions } from "./delivery-options";
import { idempotency } from "./idempotency";
import { requestMetadata } from "./metadata";
import { requestBudget } from "./budget";
import { batchTrace, readTraceHeaders } from "../../core/telemetry/trace-context";

type Ctx = Context<AppEnv>;

/** The fields of a batch message to the chat that do not depend on the route (`StartFields`). */
export type BatchFields = StartFields;

/** The route a batch came by, as its idempotency fingerprint names it. */
export type BatchRoute = "parallel" | "spawn" | "tool-calls" | "mcp" | "rerun";

export interface BatchContext {
  chatId: string;
  config: TenantConfig;
  body: unknown;
  /** The calling agent's profile (`?agent=`). */
  agent: string;
  /**
   * What a call is checked against: the config, the agent, the tools it may call, the MCP lists the body
   * names, the pattern meter.
   */
  spec: SpecContext;
  limits: BatchFields["limits"];
  /** A stub of the chat, made anew each time (one from before the chat restarted stays broken). */
  chat(): ReturnType<typeof chatStub>;
  /**
   * `spec` with every MCP server of the tenant listed, or undefined when it had them all. A
   * request lists only the servers its body names; an unknown-tool answer names every tool the
   * agent may call, so the rest are listed then, on that error path only.
   */
  withEveryServer(spec: SpecContext): Promise<SpecContext | undefined>;
  /**
   * The fields every batch message carries, the route's own checks done: the `Idempotency-Key`
   * is checked here, after them, and the fingerprint covers the body, the agent, the delivery
   * options, `?budget=` and the route's own query (`extra`).
   */
  fields(route: BatchRoute, extra?: Record<string, string | undefined>): Promise<BatchFields>;
}

/** The calling agent's policy, handed to the chat for the checks that need its state. */
const callerOf = (config: TenantConfig, agent: string): Caller => ({
  agent,
  task_rules: orderedRules(profile(config, agent).permission?.task),
});

export const isUnknownTool = (e: unknown) => e instanceof ApiError && e.code === "unknown_tool";

/**
 * `plan` over the tools the request's body names; planned again with every MCP server of the tenant
 * listed when `unknown` says it named a tool it could not find, so that error names the MCP tools too.
 */
export async function planNamingEveryTool<T>(
  ctx: BatchContext,
  plan: (spec: SpecContext) => T,
  unknown: (planned: T) => boolean,
): Promise<T> {
  const planned = plan(ctx.spec);
  if (!unknown(planned)) return planned;
  const every = await ctx.withEveryServer(ctx.spec);
  return every ? plan(every) : planned;
}

/**
 * Reads what every job-starting route reads first (`given`: the body and agent of a call the MCP
 * endpoint read out of its JSON-RPC request), in the documented order
 * (docs/api.md#validation-order-and-errors): the chat id, the tenant config, the body (size and
 * depth limits), the calling agent, the delivery options and metadata (request metadata, never
 * model-written), the budget. Then the tools the calls may use: the lists of the MCP servers the
 * body names are fetched here, since admission allows no await.
 */
export async function batchContext(c: Ctx, given?: { body: unknown; agent: string }): Promise<BatchContext> {
  const chatId = chatIdParam(c);
  const config = await tenantConfig(c);
  // A document stored before the bound may hold more: the bound holds for it too.
  const body = given
    ? given.body
    : await readJsonBody(c.req.raw, Math.min(config.limits.max_body_bytes, MAX_BODY_BYTES));
  const agent = given ? given.agent : callerAgent(c, config);
  const delivery = {
    ...deliveryOptions((k) => c.req.query(k), config),
    metadata: requestMetadata(c.req.query("metadata"), c.req.header("fanout-metadata")),
  };
  const budget = requestBudget(c.req.query("budget"), config.limits.budget);
  const mcp = await loadMcpListings(tenantStub(c), serversNamedIn(body, config));
  const spec: SpecContext = {
    config,
    agent,
    available: toolsForAgent(config, agent, mcp),
    mcp,
    patterns: new PatternMeter(),
  };
  const limits = chatLimits(config);
  const caller = callerOf(config, agent);
  // Decided once per top-level batch (docs/api.md#traces); a malformed traceparent counts as none.
  const trace = batchTrace(readTraceHeaders(c.req.header("traceparent"), c.req.header("tracestate")), config.telemetry);
  return {
    chatId,
    config,
    body,
    agent,
    spec,
    limits,
    chat: () => chatStub(c, chatId),
    async withEveryServer(spec) {
      const missing = spec.config.mcp_servers.map((s) => s.name).filter((name) => !(name in (spec.mcp ?? {})));
      if (missing.length === 0) return undefined;
      const mcp = { ...spec.mcp, ...(await loadMcpListings(tenantStub(c), missing)) };
      return { ...spec, available: toolsForAgent(spec.config, spec.agent, mcp), mcp };
    },
    async fields(route, extra = {}) {
      const key = await idempotency(c.req.header("idempotency-key"), {
        route,
        body,
        agent,
        ...delivery,
        budget: c.req.query("budget"),
        ...extra,
      });
      return {
        tenant: c.get("tenant"),
        chat_id: chatId,
        limits,
        caller,
        ...(config.flow.length ? { flow: config.flow } : {}),
        ...(config.approvals.length ? { approvals: config.approvals } : {}),
        ...(budget ? { budget } : {}),
        ...(trace ? { trace } : {}),
        delivery,
        idempotency: key,
        config_check: configCheckOf(c),
      };
    },
  };
}
