/**
 * Where the secrets of a configuration live, and sealing, masking and opening
 * them. Each secret has a stable slot id and path by tool/server name, not
 * array index (`tools.search.secret`), so a `PUT` or `PATCH` that reorders
 * tools and sends `"***"` keeps each secret with its own tool, and generated
 * secrets are reported under a name that stays true.
 */
import type { TenantConfig } from "../../src/core/config/schema";
import { decryptSecret, encryptSecret, generateSigningSecret, MASK } from "../../src/core/config/secrets";

/** A secret the document must send itself; `code` is the API error it answers. */
export class SecretMissing extends Error {
  constructor(
    message: string,
    readonly code: "invalid_config" | "secret_required",
  ) {
    super(message);
  }
}

/** `scheme://host[:port]`, as docs/api.md#secrets writes an origin; undefined for no URL. */
function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

interface Slot {
  id: string;
  /**
   * Where a person finds it in the document, by name: `tools.search.secret`,
   * `mcp_servers.docs.headers.Authorization`.
   */
  path: string;
  get(): string | undefined;
  set(value: string): void;
  /** Signing secrets are generated when omitted. */
  generated: boolean;
  /**
   * Where the secret goes (or signs requests to): a kept secret stays bound to this URL's origin.
   * Undefined for `webhook.secret`, which only signs what fanout sends and is never sent itself.
   */
  destination?: string;
}

function slots(c: TenantConfig): Slot[] {
  const out: Slot[] = [];
  for (const t of c.tools) {
    out.push({
      id: `tool:${t.name}`,
      path: `tools.${t.name}.secret`,
      get: () => t.secret,
      set: (v) => (t.secret = v),
      generated: true,
      destination: t.url,
    });
  }
  for (const s of c.mcp_servers) {
    for (const header of Object.keys(s.headers)) {
      out.push({
        id: `mcp:${s.name}:${header.toLowerCase()}`,
        path: `mcp_servers.${s.name}.headers.${header}`,
        get: () => s.headers[header],
        set: (v) => (s.headers[header] = v),
        generated: false,
        destination: s.url,
      });
    }
  }
  const { llm, webhook, telegram, telemetry } = c;
  if (telemetry) {
    for (const header of Object.keys(telemetry.otlp.headers)) {
      out.push({
        id: `telemetry:${header.toLowerCase()}`,
        path: `telemetry.otlp.headers.${header}`,
        get: () => telemetry.otlp.headers[header],
        set: (v) => (telemetry.otlp.headers[header] = v),
        generated: false,
        destination: telemetry.otlp.url,
      });
    }
  }
  if (llm) {
    out.push({
      id: "llm",
      path: "llm.api_key",
      get: () => llm.api_key,
      set: (v) => (llm.api_key = v),
      generated: false,
      destination: llm.base_url,
    });
  }
  if (webhook) {
    out.push({
      id: "webhook",
      path: "webhook.secret",
      get: () => webhook.secret,
      set: (v) => (webhook.secret = v),
      generated: true,
    });
  }
  if (telegram) {
    out.push({
      id: "telegram",
      path: "telegram.bot_token",
      get: () => telegram.bot_token,
      set: (v) => (telegram.bot_token = v),
      generated: false,
      destination: telegram.api_base_url,
    });
  }
  return out;
}

const copy = (c: TenantConfig) => structuredClone(c);

/** What storing a document does with one of its secrets. */
export type SecretOutcome =
  | { kind: "keep"; sealed: string }
  | { kind: "seal"; plain: string }
  | { kind: "generate" }
  | { kind: "none" }
  | { kind: "refuse"; code: "invalid_config" | "secret_required"; message: string };

/** A sealed secret as stored, with the destination it was stored for. */
export type StoredSecret = { sealed: string; destination?: string };

/**
 * The one place that decides whether a stored secret is kept: `sent` is the slot's value in the
 * new document (`"***"` where `GET` showed it, or where a `PATCH` left it out), `stored` the sealed
 * value under the same slot id, if any. A secret is kept only while it would still go to the origin
 * it was stored for (docs/api.md#secrets): a key that may change the configuration must not be able to send a
 * stored secret to a host of its choosing.
 */
export function secretOutcome(
  slot: Pick<Slot, "path" | "generated" | "destination">,
  sent: string | undefined,
  stored: StoredSecret | undefined,
): SecretOutcome {
  if (sent === MASK) {
    if (!stored) {
      return {
        kind: "refuse",
        code: "invalid_config",
        message: `${slot.path} is "***" but no secret is stored for it; send the secret itself.`,
      };
    }
    const from = originOf(stored.destination);
    const to = originOf(slot.destination);
    if (from !== to) {
      return {
        kind: "refuse",
        code: "secret_required",
        message: `${slot.path} must be sent again: its destination changed from ${from} to ${to}.`,
      };
    }
    return { kind: "keep", sealed: stored.sealed };
  }
  if (sent !== undefined) return { kind: "seal", plain: sent };
  return slot.generated ? { kind: "generate" } : { kind: "none" };
}

/**
 * Seals `next`'s secrets, keeping stored ones where it says "***". Secrets
 * generated here are returned in plain text once, by path, because the tenant
 * needs them to verify signatures and `GET` will never show them.
 */
export async function sealSecrets(
  next: TenantConfig,
  previous: TenantConfig,
  key: CryptoKey,
): Promise<{ sealed: TenantConfig; generated: Record<string, string> }> {
  const stored = new Map<string, StoredSecret>();
  for (const slot of slots(copy(previous))) {
    const sealed = slot.get();
    if (sealed !== undefined) stored.set(slot.id, { sealed, destination: slot.destination });
  }
  const sealed = copy(next);
  const generated: Record<string, string> = {};
  for (const slot of slots(sealed)) {
    const outcome = secretOutcome(slot, slot.get(), stored.get(slot.id));
    if (outcome.kind === "refuse") throw new SecretMissing(outcome.message, outcome.code);
    if (outcome.kind === "keep") slot.set(outcome.sealed);
    if (outcome.kind === "seal") slot.set(await encryptSecret(key, outcome.plain));
    if (outcome.kind === "generate") {
      const secret = generateSigningSecret();
      generated[slot.path] = secret;
      slot.set(await encryptSecret(key, secret));
    }
  }
  return { sealed, generated };
}

export function maskSecrets(config: TenantConfig): TenantConfig {
  const masked = copy(config);
  for (const slot of slots(masked)) if (slot.get() !== undefined) slot.set(MASK);
  return masked;
}

export async function openSecrets(config: TenantConfig, key: CryptoKey): Promise<TenantConfig> {
  const opened = copy(config);
  for (const slot of slots(opened)) {
    const value = slot.get();
    if (value !== undefined) slot.set(await decryptSecret(key, value));
  }
  return opened;
}
