/**
 * TenantDO: one per tenant (`tenant/<tenant>`). Holds the configuration
 * document with its secrets sealed under CONFIG_KEY (`config-store.ts`), the
 * targets opened from it (`targets.ts`), the index of the tenant's chats
 * (`chat-index.ts`), the tenant-wide stream (`tenant-stream.ts`, `tickets.ts`), the count
 * of the tenant's live streams (`stream-share.ts`) and the MCP tool lists (`mcp-lists.ts`); this class is
 * their RPC face and the
 * glue between them. Secrets leave this object only decrypted for the chat
 * whose call needs one, never in `GET /v1/config`, job records or errors.
 */
import { DurableObject } from "cloudflare:workers";
import { limitsSchema, type TenantConfig } from "../../src/core/config/schema";
import type { RunTarget } from "../../src/core/tools/executors";
import type { LlmTarget } from "../../src/core/agents/llm";
import type { WebhookTarget } from "../../src/core/webhooks/send";
import type { TelegramTarget } from "../../src/core/notify/telegram";
import { maskSecrets } from "./sealed-config";
import { Tickets } from "./tickets";
import { StreamShare } from "./stream-share";
import { tooManyStreams, type ErrorBody } from "../../src/core/http/errors";
import { TenantStream } from "./tenant-stream";
import { acceptStream, answerClose, broadcast, parseCursor, type StreamMessage } from "../shared/live-stream";
import { chatName } from "../../src/core/objects/names";
import { egressProblem } from "../../src/core/egress/policy";
import type { McpListing } from "../../src/core/tools/mcp";
import { listMcpTools } from "../../src/core/tools/mcp-client";
import { McpLists } from "./mcp-lists";
import { applyConfigPatch, type ConfigPatch } from "../../src/core/config/patch";
import { checkConfig } from "../../src/core/config-check/validate";
import type { ListedChat } from "../../src/core/chats/chat-tree";
import { ConfigStore } from "./config-store";
import type { WriteConfigResult } from "../../src/core/config-check/validate";
import { ChatIndex } from "./chat-index";
import { ApprovalIndex } from "./approval-index";
import type { ApprovalEntry } from "../../src/core/approvals/approval";
import { Targets } from "./targets";
import { sha256Hex } from "../../src/core/util/digest";
import type { ExportTally, TelemetryTarget } from "../../src/core/telemetry/exporter";
import { TelemetryCounts, type TelemetryStatus } from "./telemetry-counts";

const DEFAULT_MAX_STREAMS = limitsSchema.parse({}).max_streams;

/**
 * What an MCP server's list belongs to: its URL and header values as sent, digested. Not the
 * sealed form, which changes with every write that sends a header again, though nothing changed.
 */
const definitionDigest = (endpoint: { url: string; headers: Record<string, string> }) =>
  sha256Hex(JSON.stringify([endpoint.url, Object.entries(endpoint.headers).sort()]));

export class TenantDO extends DurableObject<Env> {
  readonly #config: ConfigStore;
  readonly #index: ChatIndex;
  readonly #approvals: ApprovalIndex;
  readonly #targets: Targets;
  readonly #tickets: Tickets;
  readonly #stream: TenantStream;
  readonly #streams: StreamShare;
  readonly #mcp: McpLists;
  readonly #telemetry: TelemetryCounts;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.#config = new ConfigStore(
      sql,
      () => this.env.CONFIG_KEY,
      (sealed) => this.#refreshMcpLists(sealed),
    );
    this.#index = new ChatIndex(sql);
    this.#approvals = new ApprovalIndex(sql);
    this.#targets = new Targets(sql, this.#config);
    this.#tickets = new Tickets(sql);
    this.#stream = new TenantStream(sql);
    this.#streams = new StreamShare(sql);
    this.#telemetry = new TelemetryCounts(sql);
    this.#mcp = new McpLists(
      sql,
      listMcpTools,
      () => this.env.ALLOW_PRIVATE_EGRESS === "true",
      () => this.#targets.secrets(),
    );
  }

  // ---- the live stream (docs/api.md#live-streams) -------------------------------

  /** A ticket, or the refusal when the tenant's live streams are at their limit. */
  async issueTicket(tenant: string, chatId: string | null): Promise<{ ticket: string } | { refused: ErrorBody }> {
    const full = await this.#streamsFull(tenant);
    if (full) return { refused: full };
    return { ticket: await this.#tickets.issue(tenant, chatId, Date.now()) };
  }

  /**
   * A chat asks before it accepts a stream, saying how many it has open: null when the tenant has room for
   * one more.
   */
  async admitChatStream(tenant: string, chatId: string, sockets: number): Promise<ErrorBody | null> {
    const max = this.#maxStreams();
    const admit = () => this.#streams.admitChat(chatId, sockets, this.#ownSockets(), max, Date.now());
    if (admit()) return null;
    await this.#recount(tenant);
    return admit() ? null : tooManyStreams(this.#streams.open(this.#ownSockets()), max).toBody();
  }

  /** A chat's stream closed: what it has left. */
  chatStreams(chatId: string, sockets: number): void {
    this.#streams.chatStreams(chatId, sockets, Date.now());
  }

  #maxStreams(): number {
    // A document stored before the limit existed has none: the default applies.
    return this.#config.masked().config.limits.max_streams ?? DEFAULT_MAX_STREAMS;
  }

  #ownSockets(): number {
    return this.ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN).length;
  }

  async #streamsFull(tenant: string): Promise<ErrorBody | undefined> {
    const max = this.#maxStreams();
    if (this.#streams.open(this.#ownSockets()) < max) return undefined;
    await this.#recount(tenant);
    const open = this.#streams.open(this.#ownSockets());
    return open >= max ? tooManyStreams(open, max).toBody() : undefined;
  }

  /** Asks the counted chats what they have open: a chat restarted by a deploy lost its sockets without saying so. */
  async #recount(tenant: string): Promise<void> {
    const now = Date.now();
    await Promise.all(
      this.#streams.chats().map(async (chatId) => {
        const open = await this.env.CHAT.getByName(chatName(tenant, chatId))
          .openStreams()
          .catch(() => undefined);
        if (open !== undefined) this.#streams.chatStreams(chatId, open, now);
      }),
    );
  }

  redeemTicket(ticket: string): Promise<{ chat_id: string | null } | undefined> {
    return this.#tickets.redeem(ticket, Date.now());
  }

  /** The tenant-wide stream: the worker forwards the authenticated upgrade here. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const after = parseCursor(url.searchParams.get("after"));
    const tenant = url.searchParams.get("tenant")!;
    const full = await this.#streamsFull(tenant);
    if (full) return Response.json(full, { status: 429 });
    const now = Date.now();
    const wasListening = this.#stream.listening(this.ctx.getWebSockets().length, now);
    this.#stream.touch(now);
    // While nobody listened, chats stopped publishing: a resuming client may have missed events.
    const response = acceptStream(this.ctx, after === "invalid" ? null : after, this.#stream, !wasListening);
    // Chats stopped publishing while nobody listened: tell the recent ones someone is back.
    if (!wasListening) this.ctx.waitUntil(this.#wakeChats(tenant, now));
    return response;
  }

  /**
   * Chats' events, while someone listens; the answer tells a chat whether to keep publishing. Live-only ones
   * are not kept.
   */
  publish(messages: StreamMessage[]): { listening: boolean } {
    return this.#publish(messages);
  }

  #publish(messages: StreamMessage[]): { listening: boolean } {
    const now = Date.now();
    if (!this.#stream.listening(this.ctx.getWebSockets().length, now)) return { listening: false };
    for (const m of messages)
      broadcast(this.ctx, typeof m === "string" ? this.#stream.append(m, now) : this.#stream.live(m.live));
    if (messages.some((m) => typeof m === "string")) this.#stream.purge(now);
    return { listening: true };
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#stream.touch(Date.now());
    answerClose(ws, code, reason);
  }

  async #wakeChats(tenant: string, now: number): Promise<void> {
    const recent = this.#index.recent(now);
    await Promise.allSettled(
      recent.map((chatId) => this.env.CHAT.getByName(chatName(tenant, chatId)).tenantListening(true)),
    );
  }

  // ---- configuration (docs/api.md#configuration) ----------------------------------

  /**
   * The configuration with every secret shown as "***": what requests and `GET /v1/config` see.
   * Without the document when the caller's copy is of the current version (`known`): an isolate
   * checks every 5 s, and the document seldom changes.
   */
  getConfig(known?: number): { config?: TenantConfig; version: number } {
    const version = this.#config.version();
    return version === known ? { version } : this.#config.masked();
  }

  /** Replaces the document (`PUT`, validated by the worker). `"***"` keeps the stored secret of the same slot. */
  putConfig(next: TenantConfig): Promise<WriteConfigResult> {
    return this.#config.write(() => ({ ok: true, config: next }));
  }

  /**
   * Applies a merge patch (`PATCH`) to the stored document here, where writes are serialised, not
   * to a read the worker made earlier: concurrent patches all land. The result is checked like a `PUT`.
   */
  patchConfig(patch: ConfigPatch, allowPrivateEgress: boolean): Promise<WriteConfigResult> {
    return this.#config.write((stored) =>
      checkConfig(applyConfigPatch(maskSecrets(stored), patch), allowPrivateEgress),
    );
  }

  // ---- MCP tool lists (docs/api.md#mcp-servers) ---------------------------------

  /**
   * One server's tool list, from the 5-minute cache or the server. Asked once per server, so each
   * listing runs in an invocation of its own (docs/architecture.md#platform-rules).
   */
  async mcpListing(server: string): Promise<McpListing> {
    const sealed = this.#config.sealed().config.mcp_servers.find((s) => s.name === server);
    if (!sealed) return { unavailable: `MCP server '${server}' is not configured.` };
    // The config was checked when it was stored; ALLOW_PRIVATE_EGRESS may have changed since.
    const refused = egressProblem(sealed.url, this.env.ALLOW_PRIVATE_EGRESS === "true");
    if (refused) return { unavailable: `MCP server '${server}': its URL ${refused}` };
    const endpoint = await this.#targets.mcpEndpoint(server);
    return this.#mcp.get(endpoint, await definitionDigest(endpoint), Date.now());
  }

  /** After a PUT or PATCH: lists of removed servers go, the others are listed again when next used. */
  #refreshMcpLists(config: TenantConfig): void {
    this.#mcp.keepOnly(config.mcp_servers.map((s) => s.name));
    this.#mcp.stale();
  }

  // ---- targets, with their secrets opened ---------------------------------------------

  /**
   * The targets of a batch's tools, in one call, with the config version they were opened from (the isolate
   * cache keys on it).
   */
  async runTargets(toolNames: string[]): Promise<{ version: number; targets: Record<string, RunTarget> }> {
    const { version } = this.#config.masked();
    const targets: Record<string, RunTarget> = {};
    for (const name of toolNames) targets[name] = await this.#targets.run(name);
    return { version, targets };
  }

  llmTarget(): Promise<LlmTarget | null> {
    return this.#targets.llm();
  }

  webhookTarget(): Promise<WebhookTarget | null> {
    return this.#targets.webhook();
  }

  telegramTarget(): Promise<TelegramTarget | null> {
    return this.#targets.telegram();
  }

  // ---- traces (docs/api.md#traces) ----------------------------------------------------

  /** Where the tenant's spans go, headers opened, with the config version it was read from (the isolate cache keys on it). */
  async telemetryTarget(): Promise<{ version: number; target: TelemetryTarget | null }> {
    return { version: this.#config.version(), target: await this.#targets.telemetry() };
  }

  /** An exporter's report; the answer is the config version, so its copy of the target is checked with it. */
  telemetryExported(tally: ExportTally): { version: number } {
    this.#telemetry.add(tally);
    return { version: this.#config.version() };
  }

  telemetryStatus(): TelemetryStatus {
    return this.#telemetry.status();
  }

  disableWebhook(version: number): void {
    this.#targets.disableWebhook(version);
  }

  // ---- chat index ------------------------------------------------------------

  /**
   * Indexes a new chat, with the events it recorded before (published as `publish` does); the answer
   * tells it whether a tenant stream is listening.
   */
  registerChat(
    chatId: string,
    now: number,
    parent: string | null = null,
    level = 0,
    name = chatId,
    events: StreamMessage[] = [],
  ): { listening: boolean } {
    this.#index.register(chatId, now, parent, level, name);
    return this.#publish(events);
  }

  forgetChat(chatId: string): void {
    this.#index.forget(chatId);
    this.#approvals.forget([chatId]);
  }

  forgetSubtree(chatId: string): void {
    this.#approvals.forget(this.#index.forgetSubtree(chatId));
  }

  listChats(cursor: string | null, limit: number): { chats: ListedChat[]; next_cursor: string | null } {
    return this.#index.list(cursor, limit);
  }

  // ---- approvals (docs/api.md#approvals) --------------------------------------------------

  noteApprovals(entries: ApprovalEntry[]): void {
    this.#approvals.note(entries);
  }

  listApprovals(
    status: "pending" | "decided",
    cursor: string | null,
    limit: number,
  ): { approvals: ApprovalEntry[]; next_cursor: string | null } {
    return this.#approvals.list(status, cursor, limit);
  }
}
