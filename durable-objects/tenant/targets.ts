/**
 * Where a tenant's outbound calls go, with the secret each needs opened: a
 * tool's URL and signing secret, an MCP server's endpoint and headers, the
 * LLM provider, the webhook, the Telegram bot. A secret leaves the TenantDO
 * only this way, decrypted for the chat whose call needs it, never in
 * `GET /v1/config`, job records or errors. Each target that reads a remote's
 * answer also carries every stored secret of the tenant (`secrets`): the answer
 * is redacted of all of them (src/core/util/redact.ts) before anything keeps it.
 */
import type { LlmTarget } from "../../src/core/agents/llm";
import type { TelegramTarget } from "../../src/core/notify/telegram";
import type { RunTarget } from "../../src/core/tools/executors";
import { splitMcpName } from "../../src/core/tools/mcp";
import type { McpEndpoint } from "../../src/core/tools/mcp-client";
import type { WebhookTarget } from "../../src/core/webhooks/send";
import type { TenantConfig } from "../../src/core/config/schema";
import type { TelemetryTarget } from "../../src/core/telemetry/exporter";
import type { ConfigStore } from "./config-store";

const CREDENTIAL_HEADER = /auth|token|key|secret|cookie|session|pass|credential|signature/i;

/** The secrets of each opened document: every target of a batch carries them, so they are gathered once per version. */
const secretsOf = new WeakMap<TenantConfig, string[]>();

function gatherSecrets(opened: TenantConfig): string[] {
  const headers = [
    ...opened.mcp_servers.flatMap((s) =>
      Object.entries(s.headers).flatMap(([name, value]) =>
        CREDENTIAL_HEADER.test(name) && value.length <= 1024 ? [value] : [],
      ),
    ),
    // An OTLP endpoint's headers are there to authenticate (`x-honeycomb-team`, `DD-API-KEY`), whatever their name.
    ...Object.values(opened.telemetry?.otlp.headers ?? {}).filter((value) => value.length <= 1024),
  ];
  const credentials = headers.flatMap((value) => /^\S+\s+(\S+)$/.exec(value)?.[1] ?? []);
  return [
    opened.llm?.api_key,
    opened.telegram?.bot_token,
    opened.webhook?.secret,
    ...opened.tools.map((t) => t.secret),
    ...headers,
    ...credentials,
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
}

export class Targets {
  constructor(
    private readonly sql: SqlStorage,
    private readonly config: ConfigStore,
  ) {
    // A 410 from the webhook disables it for the config version it was sent under.
    sql.exec(
      `CREATE TABLE IF NOT EXISTS webhook_state (id INTEGER PRIMARY KEY CHECK (id = 1), disabled_version INTEGER NOT NULL)`,
    );
  }

  async mcpEndpoint(server: string): Promise<McpEndpoint> {
    const opened = (await this.config.opened()).mcp_servers.find((s) => s.name === server)!;
    return { name: opened.name, url: opened.url, headers: opened.headers };
  }

  /**
   * Every stored secret of the tenant, opened. Of MCP headers, the values of those named like
   * credentials (`Authorization`, `X-Api-Key`, cookies, tokens), up to 1,024 characters: an
   * `Accept: application/json` taken out of every result would only mangle them. A value like
   * `Bearer <token>` counts with its token alone too.
   */
  async secrets(): Promise<string[]> {
    const opened = await this.config.opened();
    let secrets = secretsOf.get(opened);
    if (!secrets) {
      secrets = gatherSecrets(opened);
      secretsOf.set(opened, secrets);
    }
    return secrets;
  }

  /** What the chat needs to call `toolName`, with its secret decrypted. */
  async run(toolName: string): Promise<RunTarget> {
    const { config } = this.config.sealed();
    const max_response_bytes = config.limits.max_response_bytes;
    const secrets = await this.secrets();
    if (toolName === "http_request") {
      return {
        kind: "http_request",
        allowed_origins: config.builtins.http_request.allowed_origins,
        max_response_bytes,
        secrets,
      };
    }
    const tool = config.tools.find((t) => t.name === toolName);
    const mcp = tool ? undefined : splitMcpName(toolName, config);
    if (mcp)
      return { kind: "mcp", endpoint: await this.mcpEndpoint(mcp.server), tool: mcp.tool, max_response_bytes, secrets };
    if (!tool)
      return { kind: "missing", message: `Tool '${toolName}' was removed from the configuration before the job ran.` };
    const opened = await this.config.opened();
    return {
      kind: "http_tool",
      url: tool.url,
      secret: opened.tools.find((t) => t.name === toolName)!.secret!,
      max_response_bytes,
      secrets,
    };
  }

  /** The LLM provider for agent loops, with its key decrypted; null when none is configured. */
  async llm(): Promise<LlmTarget | null> {
    const { config } = this.config.sealed();
    if (!config.llm) return null;
    const opened = await this.config.opened();
    const key = opened.llm!.api_key ? { api_key: opened.llm!.api_key } : {};
    return { base_url: opened.llm!.base_url, model: opened.llm!.model, ...key, secrets: await this.secrets() };
  }

  /** Where events go, with the signing secret decrypted; null when no webhook is configured. */
  async webhook(): Promise<WebhookTarget | null> {
    const { config, version } = this.config.sealed();
    if (!config.webhook) return null;
    const opened = await this.config.opened();
    const disabled = this.sql
      .exec<{ v: number }>(`SELECT disabled_version AS v FROM webhook_state WHERE id = 1`)
      .toArray()[0]?.v;
    return { url: config.webhook.url, secret: opened.webhook!.secret!, disabled: disabled === version, version };
  }

  /** The Telegram bot for `?notify=` messages, with its token decrypted; null when none is configured. */
  async telegram(): Promise<TelegramTarget | null> {
    const { config } = this.config.sealed();
    if (!config.telegram) return null;
    const opened = await this.config.opened();
    return {
      api_base_url: config.telegram.api_base_url,
      bot_token: opened.telegram!.bot_token,
      secrets: await this.secrets(),
    };
  }

  /** Where the tenant's spans go, with its headers decrypted; null when it exports none. */
  async telemetry(): Promise<TelemetryTarget | null> {
    const { config } = this.config.sealed();
    if (!config.telemetry) return null;
    const { otlp } = (await this.config.opened()).telemetry!;
    return { url: otlp.url, protocol: otlp.protocol, headers: otlp.headers, secrets: await this.secrets() };
  }

  /** The receiver answered 410 Gone: stop sending until the configuration is replaced. */
  disableWebhook(version: number): void {
    this.sql.exec(`INSERT OR REPLACE INTO webhook_state (id, disabled_version) VALUES (1, ?)`, version);
  }
}
