/**
 * Tenant secrets at rest (docs/api.md#secrets): AES-GCM under the CONFIG_KEY Worker
 * secret, so a copy of a TenantDO's storage alone reveals no API key, tool
 * secret or bot token. Values are stored as `enc:v1:<iv b64>:<ciphertext b64>`.
 */
export const MASK = "***";
const PREFIX = "enc:v1:";

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

export async function importConfigKey(raw: string | undefined): Promise<CryptoKey | undefined> {
  if (!raw) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = unb64(raw.trim());
  } catch {
    return undefined;
  }
  if (bytes.length !== 32) return undefined;
  return crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function encryptSecret(key: CryptoKey, plain: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plain));
  return `${PREFIX}${b64(iv)}:${b64(new Uint8Array(sealed))}`;
}

export async function decryptSecret(key: CryptoKey, stored: string): Promise<string> {
  if (!stored.startsWith(PREFIX)) throw new Error("stored secret is not in enc:v1 form");
  const [iv, sealed] = stored.slice(PREFIX.length).split(":");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv ?? "") }, key, unb64(sealed ?? ""));
  return new TextDecoder().decode(plain);
}

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export const generateSigningSecret = () => `whsec_${b64(crypto.getRandomValues(new Uint8Array(24)))}`;
