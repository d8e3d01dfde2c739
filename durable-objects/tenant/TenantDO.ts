/**
 * TenantDO: one per tenant (`tenant/<tenant>`). Holds the configuration
 * document with its secrets sealed under CONFIG_KEY, and the index of the
 * tenant's chats. Secrets leave this object only decrypted for the chat whose
 * call needs one, never in `GET /v1/config`, job records or errors.
 */
import { DurableObject } from "cloudflare:workers";
import { defaultConfig, type TenantConfig } from "../../src/config/schema";
import { importConfigKey } from "../../src/config/secrets";
import type { RunTarget } from "../../src/tools/executors";
import type { LlmTarget } from "../../src/agents/llm";
import type { WebhookTarget } from "../../src/webhooks/send";
import type { TelegramTarget } from "../../src/notify/telegram";
import { maskSecrets, openSecrets, sealSecrets, SecretMissing } from "./sealed-config";
import { Tickets } from "./tickets";
import { TenantStream } from "./tenant-stream";
import { acceptStream, answerClose, broadcast, parseCursor, type StreamMessage } from "../shared/live-stream";
import { chatName } from "../../src/objects/names";
import { egressProblem } from "../../src/egress/policy";
import { splitMcpName, type McpListing } from "../../src/tools/mcp";
import { listMcpTools, type McpEndpoint } from "../../src/tools/mcp-client";
import { McpLists } from "./mcp-lists";
import { applyConfigPatch, type ConfigPatch } from "../../src/config/patch";
import { checkConfig, type CheckedConfig } from "../../src/config/validate";
import { chatTree, MAX_LISTED_CHILDREN, type IndexRow, type ListedChat } from "../../src/chats/chat-tree";

export type WriteConfigResult =
  | { ok: true; config: TenantConfig; version: number; generated_secrets: Record<string, string> }
  | { ok: false; problems: string[]; code?: "secret_required" };

export class TenantDO extends DurableObject<Env> {
  readonly #sql = this.ctx.storage.sql;
  /** Every request reads the config: keep the parsed, masked form until the next PUT or PATCH. */
  #cached: { config: TenantConfig; version: number } | undefined;
  #key: CryptoKey | undefined;
  #openedCache: { version: number; opened: Promise<TenantConfig> } | undefined;
  /** Config writes, one after another: each starts from the document the previous one stored. */
  #writes: Promise<unknown> = Promise.resolve();
  readonly #tickets: Tickets;
  readonly #stream: TenantStream;
  readonly #mcp: McpLists;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS config (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL, version INTEGER NOT NULL)`);
    this.#sql.exec(
      `CREATE TABLE IF NOT EXISTS chats (chat_id TEXT PRIMARY KEY, parent_chat_id TEXT, level INTEGER NOT NULL DEFAULT 0,
         name TEXT NOT NULL, created_at INTEGER NOT NULL, last_activity INTEGER NOT NULL)`,
    );
    // Serves both the page of top-level chats (parent NULL, by id) and each chat's children.
    this.#sql.exec(`CREATE INDEX IF NOT EXISTS chats_by_parent ON chats (parent_chat_id, chat_id)`);
    // A 410 from the webhook disables it for the config version it was sent under.
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS webhook_state (id INTEGER PRIMARY KEY CHECK (id = 1), disabled_version INTEGER NOT NULL)`);
    this.#tickets = new Tickets(this.#sql);
    this.#stream = new TenantStream(this.#sql);
    this.#mcp = new McpLists(this.#sql, listMcpTools, () => this.env.ALLOW_PRIVATE_EGRESS === "true");
  }

  // ---- the live stream (SPEC §6) ------------------------------------------------

  issueTicket(tenant: string, chatId: string | null): Promise<string> {
    return this.#tickets.issue(tenant, chatId, Date.now());
  }

  redeemTicket(ticket: string): Promise<{ chat_id: string | null } | undefined> {
    return this.#tickets.redeem(ticket, Date.now());
  }

  /** The tenant-wide stream: the worker forwards the authenticated upgrade here. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const after = parseCursor(url.searchParams.get("after"));
    const tenant = url.searchParams.get("tenant")!;
    const now = Date.now();
    const wasListening = this.#stream.listening(this.ctx.getWebSockets().length, now);
    this.#stream.touch(now);
    // While nobody listened, chats stopped publishing: a resuming client may have missed events.
    const response = acceptStream(this.ctx, after === "invalid" ? null : after, this.#stream, !wasListening);
    // Chats stopped publishing while nobody listened: tell the recent ones someone is back.
    if (!wasListening) this.ctx.waitUntil(this.#wakeChats(tenant, now));
    return response;
  }

  /** Chats' events, while someone listens; the answer tells a chat whether to keep publishing. Live-only ones are not kept. */
  publish(messages: StreamMessage[]): { listening: boolean } {
    const now = Date.now();
    if (!this.#stream.listening(this.ctx.getWebSockets().length, now)) return { listening: false };
    for (const m of messages) broadcast(this.ctx, typeof m === "string" ? this.#stream.append(m, now) : this.#stream.live(m.live));
    if (messages.some((m) => typeof m === "string")) this.#stream.purge(now);
    return { listening: true };
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#stream.touch(Date.now());
    answerClose(ws, code, reason);
  }

  async #wakeChats(tenant: string, now: number): Promise<void> {
    const recent = this.#sql
      .exec<{ chat_id: string }>(`SELECT chat_id FROM chats WHERE last_activity > ? ORDER BY last_activity DESC LIMIT 200`, now - 24 * 3600_000)
      .toArray();
    await Promise.allSettled(recent.map((c) => this.env.CHAT.getByName(chatName(tenant, c.chat_id)).tenantListening(true)));
  }

  /** The stored document with sealed secrets, or the defaults. */
  #sealed(): { config: TenantConfig; version: number } {
    const row = this.#sql.exec<{ doc: string; version: number }>(`SELECT doc, version FROM config WHERE id = 1`).toArray()[0];
    return row ? { config: JSON.parse(row.doc) as TenantConfig, version: row.version } : { config: defaultConfig(), version: 0 };
  }

  async #configKey(): Promise<CryptoKey> {
    this.#key ??= await importConfigKey(this.env.CONFIG_KEY);
    if (!this.#key) throw new Error("CONFIG_KEY is missing or is not 32 base64-encoded bytes");
    return this.#key;
  }

  /**
   * The configuration with its secrets decrypted, kept for the current version: every batch's chat
   * asks for its tools' secrets, and decrypting the document each time would be work on the hot path.
   */
  #opened(): Promise<TenantConfig> {
    const { config, version } = this.#sealed();
    if (this.#openedCache?.version !== version) {
      const opened = this.#configKey().then((key) => openSecrets(config, key));
      opened.catch(() => (this.#openedCache = undefined)); // a failure is not kept
      this.#openedCache = { version, opened };
    }
    return this.#openedCache.opened;
  }

  /** The configuration with every secret shown as "***": what requests and `GET /v1/config` see. */
  getConfig(): { config: TenantConfig; version: number } {
    if (!this.#cached) {
      const { config, version } = this.#sealed();
      this.#cached = { config: maskSecrets(config), version };
    }
    return this.#cached;
  }

  /** Replaces the document (`PUT`, validated by the worker). `"***"` keeps the stored secret of the same slot. */
  putConfig(next: TenantConfig): Promise<WriteConfigResult> {
    return this.#writeConfig(() => ({ ok: true, config: next }));
  }

  /**
   * Applies a merge patch (`PATCH`) to the stored document here, where writes are serialised, not
   * to a read the worker made earlier: concurrent patches all land. The result is checked like a `PUT`.
   */
  patchConfig(patch: ConfigPatch, allowPrivateEgress: boolean): Promise<WriteConfigResult> {
    return this.#writeConfig((stored) => checkConfig(applyConfigPatch(maskSecrets(stored), patch), allowPrivateEgress));
  }

  #writeConfig(next: (stored: TenantConfig) => CheckedConfig): Promise<WriteConfigResult> {
    const write = this.#writes.then(() => this.#storeConfig(next));
    this.#writes = write.catch(() => undefined);
    return write;
  }

  async #storeConfig(next: (stored: TenantConfig) => CheckedConfig): Promise<WriteConfigResult> {
    const previous = this.#sealed();
    const checked = next(previous.config);
    if (!checked.ok) return checked;
    let sealed: TenantConfig;
    let generated: Record<string, string>;
    try {
      ({ sealed, generated } = await sealSecrets(checked.config, previous.config, await this.#configKey()));
    } catch (e) {
      if (e instanceof SecretMissing) return { ok: false, problems: [e.message], ...(e.code === "secret_required" ? { code: e.code } : {}) };
      throw e;
    }
    const version = previous.version + 1;
    this.#sql.exec(`INSERT OR REPLACE INTO config (id, doc, version) VALUES (1, ?, ?)`, JSON.stringify(sealed), version);
    this.#cached = { config: maskSecrets(sealed), version };
    this.#refreshMcpLists(sealed);
    return { ok: true, config: this.#cached.config, version, generated_secrets: generated };
  }

  // ---- MCP tool lists (SPEC §4) -------------------------------------------------

  /**
   * One server's tool list, from the 5-minute cache or the server. Asked once per server, so each
   * listing runs in an invocation of its own (SPEC §1).
   */
  async mcpListing(server: string, refresh = false): Promise<McpListing> {
    const sealed = this.#sealed().config.mcp_servers.find((s) => s.name === server);
    if (!sealed) return { unavailable: `MCP server '${server}' is not configured.` };
    // The config was checked when it was stored; ALLOW_PRIVATE_EGRESS may have changed since.
    const refused = egressProblem(sealed.url, this.env.ALLOW_PRIVATE_EGRESS === "true");
    if (refused) return { unavailable: `MCP server '${server}': its URL ${refused}` };
    const endpoint = await this.#mcpEndpoint(server);
    return this.#mcp.get(endpoint, JSON.stringify(sealed), Date.now(), refresh);
  }

  /** After a PUT or PATCH: lists of removed servers go, every server is listed again in the background. */
  #refreshMcpLists(config: TenantConfig): void {
    this.#mcp.keepOnly(config.mcp_servers.map((s) => s.name));
    const self = this.env.TENANT.get(this.ctx.id);
    for (const { name } of config.mcp_servers) {
      this.ctx.waitUntil(self.mcpListing(name, true).catch((e) => console.warn("MCP list refresh failed", name, (e as Error).message)));
    }
  }

  async #mcpEndpoint(server: string): Promise<McpEndpoint> {
    const opened = (await this.#opened()).mcp_servers.find((s) => s.name === server)!;
    return { name: opened.name, url: opened.url, headers: opened.headers };
  }

  /** What the chat needs to call `toolName`, with its secret decrypted. */
  runTarget(toolName: string): Promise<RunTarget> {
    return this.#runTarget(toolName);
  }

  /** The targets of a batch's tools, in one call. */
  async runTargets(toolNames: string[]): Promise<Record<string, RunTarget>> {
    const targets: Record<string, RunTarget> = {};
    for (const name of toolNames) targets[name] = await this.#runTarget(name);
    return targets;
  }

  async #runTarget(toolName: string): Promise<RunTarget> {
    const { config } = this.#sealed();
    const max_response_bytes = config.limits.max_response_bytes;
    if (toolName === "http_request") {
      return { kind: "http_request", allowed_origins: config.builtins.http_request.allowed_origins, max_response_bytes };
    }
    const tool = config.tools.find((t) => t.name === toolName);
    const mcp = tool ? undefined : splitMcpName(toolName, config);
    if (mcp) return { kind: "mcp", endpoint: await this.#mcpEndpoint(mcp.server), tool: mcp.tool, max_response_bytes };
    if (!tool) return { kind: "missing", message: `Tool '${toolName}' was removed from the configuration before the job ran.` };
    const opened = await this.#opened();
    return { kind: "http_tool", url: tool.url, secret: opened.tools.find((t) => t.name === toolName)!.secret!, max_response_bytes };
  }

  /** The LLM provider for agent loops, with its key decrypted; null when none is configured. */
  async llmTarget(): Promise<LlmTarget | null> {
    const { config } = this.#sealed();
    if (!config.llm) return null;
    const opened = await this.#opened();
    return { base_url: opened.llm!.base_url, model: opened.llm!.model, ...(opened.llm!.api_key ? { api_key: opened.llm!.api_key } : {}) };
  }

  /** Where events go, with the signing secret decrypted; null when no webhook is configured. */
  async webhookTarget(): Promise<WebhookTarget | null> {
    const { config, version } = this.#sealed();
    if (!config.webhook) return null;
    const opened = await this.#opened();
    const disabled = this.#sql.exec<{ v: number }>(`SELECT disabled_version AS v FROM webhook_state WHERE id = 1`).toArray()[0]?.v;
    return { url: config.webhook.url, secret: opened.webhook!.secret!, disabled: disabled === version, version };
  }

  /** The Telegram bot for `?notify=` messages, with its token decrypted; null when none is configured. */
  async telegramTarget(): Promise<TelegramTarget | null> {
    const { config } = this.#sealed();
    if (!config.telegram) return null;
    const opened = await this.#opened();
    return { api_base_url: config.telegram.api_base_url, bot_token: opened.telegram!.bot_token };
  }

  /** The receiver answered 410 Gone: stop sending until the configuration is replaced. */
  disableWebhook(version: number): void {
    this.#sql.exec(`INSERT OR REPLACE INTO webhook_state (id, disabled_version) VALUES (1, ?)`, version);
  }

  // ---- chat index ------------------------------------------------------------

  /** Indexes a new chat; the answer tells it whether a tenant stream is listening. */
  registerChat(chatId: string, now: number, parent: string | null = null, level = 0, name = chatId): { listening: boolean } {
    this.#sql.exec(
      `INSERT INTO chats (chat_id, parent_chat_id, level, name, created_at, last_activity) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (chat_id) DO UPDATE SET last_activity = excluded.last_activity`,
      chatId, parent, level, name, now, now,
    );
    return { listening: this.#stream.listening(this.ctx.getWebSockets().length, now) };
  }

  forgetChat(chatId: string): void {
    this.#sql.exec(`DELETE FROM chats WHERE chat_id = ?`, chatId);
  }

  /** A chat being deleted leaves the index with every descendant at once, by the parent links (UNION stops at any cycle). */
  forgetSubtree(chatId: string): void {
    this.#sql.exec(
      `WITH RECURSIVE subtree(chat_id) AS (SELECT ? UNION SELECT c.chat_id FROM chats c JOIN subtree s ON c.parent_chat_id = s.chat_id)
       DELETE FROM chats WHERE chat_id IN (SELECT chat_id FROM subtree)`,
      chatId,
    );
  }

  /** A page of top-level chats, each with its descendants nested (see `src/chats/chat-tree` for the bounds). */
  listChats(cursor: string | null, limit: number): { chats: ListedChat[]; next_cursor: string | null } {
    const rows = this.#sql
      .exec<IndexRow>(
        `SELECT chat_id, parent_chat_id, level, name, created_at, last_activity FROM chats
         WHERE parent_chat_id IS NULL AND chat_id > ? ORDER BY chat_id LIMIT ?`,
        cursor ?? "",
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    return {
      chats: chatTree(page, (parents) => this.#childrenOf(parents)),
      next_cursor: rows.length > limit ? page[page.length - 1]!.chat_id : null,
    };
  }

  /** One level of the tree in one statement: each parent's newest children, and how many it has. */
  #childrenOf(parents: string[]): { rows: IndexRow[]; counts: Map<string, number> } {
    const rows = this.#sql
      .exec<IndexRow & { n: number }>(
        `SELECT chat_id, parent_chat_id, level, name, created_at, last_activity, n FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY parent_chat_id ORDER BY created_at DESC, chat_id DESC) AS rn,
                  COUNT(*) OVER (PARTITION BY parent_chat_id) AS n
           FROM chats WHERE parent_chat_id IN (SELECT value FROM json_each(?)))
         WHERE rn <= ?`,
        JSON.stringify(parents), // a list, not one bound parameter each (SQLite allows 100)
        MAX_LISTED_CHILDREN,
      )
      .toArray();
    return { rows, counts: new Map(rows.map((r) => [r.parent_chat_id!, r.n])) };
  }
}
