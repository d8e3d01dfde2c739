/**
 * Where the secrets of a configuration live, and sealing, masking and opening
 * them. Each secret has a stable slot id (by tool/server name, not array
 * index), so a `PUT` that reorders tools and sends `"***"` keeps each secret
 * with its own tool.
 */
import type { TenantConfig } from "../../src/config/schema";
import { decryptSecret, encryptSecret, generateSigningSecret, MASK } from "../../src/config/secrets";

export class SecretMissing extends Error {}

interface Slot {
  id: string;
  /** Where a person finds it in the document, for error messages. */
  path: string;
  get(): string | undefined;
  set(value: string): void;
  /** Signing secrets are generated when omitted. */
  generated: boolean;
}

function slots(c: TenantConfig): Slot[] {
  const out: Slot[] = [];
  c.tools.forEach((t, i) =>
    out.push({ id: `tool:${t.name}`, path: `tools[${i}].secret`, get: () => t.secret, set: (v) => (t.secret = v), generated: true }),
  );
  c.mcp_servers.forEach((s, i) => {
    for (const header of Object.keys(s.headers)) {
      out.push({
        id: `mcp:${s.name}:${header.toLowerCase()}`,
        path: `mcp_servers[${i}].headers.${header}`,
        get: () => s.headers[header],
        set: (v) => (s.headers[header] = v),
        generated: false,
      });
    }
  });
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
    const value = slot.get();
    if (value === MASK) {
      const kept = stored.get(slot.id);
      if (!kept) throw new SecretMissing(`${slot.path} is "***" but no secret is stored for it; send the secret itself.`);
      slot.set(kept);
    } else if (value !== undefined) {
      slot.set(await encryptSecret(key, value));
    } else if (slot.generated) {
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
