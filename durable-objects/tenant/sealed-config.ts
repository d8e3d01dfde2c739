/**
 * Where the secrets of a configuration live, and sealing, masking and opening
 * them. Each secret has a stable slot id and path by tool/server name, not
 * array index (`tools.search.secret`), so a `PUT` or `PATCH` that reorders
 * tools and sends `"***"` keeps each secret with its own tool, and generated
 * secrets are reported under a name that stays true.
 */
import type { TenantConfig } from "../../src/config/schema";
import { decryptSecret, encryptSecret, generateSigningSecret, MASK } from "../../src/config/secrets";

export class SecretMissing extends Error {}

interface Slot {
  id: string;
  /** Where a person finds it in the document, by name: `tools.search.secret`, `mcp_servers.docs.headers.Authorization`. */
  path: string;
  get(): string | undefined;
  set(value: string): void;
  /** Signing secrets are generated when omitted. */
  generated: boolean;
}

function slots(c: TenantConfig): Slot[] {
  const out: Slot[] = [];
  for (const t of c.tools) {
    out.push({ id: `tool:${t.name}`, path: `tools.${t.name}.secret`, get: () => t.secret, set: (v) => (t.secret = v), generated: true });
  }
  for (const s of c.mcp_servers) {
    for (const header of Object.keys(s.headers)) {
      out.push({
        id: `mcp:${s.name}:${header.toLowerCase()}`,
        path: `mcp_servers.${s.name}.headers.${header}`,
        get: () => s.headers[header],
        set: (v) => (s.headers[header] = v),
        generated: false,
      });
    }
  }
  const { llm, webhook, telegram } = c;
  if (llm) out.push({ id: "llm", path: "llm.api_key", get: () => llm.api_key, set: (v) => (llm.api_key = v), generated: false });
  if (webhook) {
    out.push({ id: "webhook", path: "webhook.secret", get: () => webhook.secret, set: (v) => (webhook.secret = v), generated: true });
  }
  if (telegram) {
    out.push({ id: "telegram", path: "telegram.bot_token", get: () => telegram.bot_token, set: (v) => (telegram.bot_token = v), generated: false });
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
  | { kind: "refuse"; message: string };

/**
 * The one place that decides whether a stored secret is kept: `sent` is the slot's value in the
 * new document (`"***"` where `GET` showed it, or where a `PATCH` left it out), `stored` the sealed
 * value under the same slot id, if any.
 */
export function secretOutcome(slot: Pick<Slot, "path" | "generated">, sent: string | undefined, stored: string | undefined): SecretOutcome {
  if (sent === MASK) {
    return stored
      ? { kind: "keep", sealed: stored }
      : { kind: "refuse", message: `${slot.path} is "***" but no secret is stored for it; send the secret itself.` };
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
  const stored = new Map(slots(copy(previous)).map((s) => [s.id, s.get()]));
  const sealed = copy(next);
  const generated: Record<string, string> = {};
  for (const slot of slots(sealed)) {
    const outcome = secretOutcome(slot, slot.get(), stored.get(slot.id));
    if (outcome.kind === "refuse") throw new SecretMissing(outcome.message);
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
