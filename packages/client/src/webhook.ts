/**
 * Verifies a fanout webhook (Standard Webhooks) in a bot: Node 18+, Workers,
 * Deno or a browser; WebCrypto only.
 *
 *   const event = await readWebhook(env.FANOUT_WEBHOOK_SECRET, request.headers, await request.text());
 *   if (!event) return new Response("bad signature", { status: 401 });
 *   if (event.type === "webhook.test") return new Response(null, { status: 204 }); // from testWebhook()
 *
 * Pass the raw body exactly as received (before any JSON parsing).
 */
import type { WebhookEvent } from "./types.js";

export interface VerifyOptions {
  /** Refuse timestamps further than this from now (seconds; default 300). 0 turns the check off. */
  toleranceSeconds?: number;
  nowMs?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/**
 * The HMAC key: the base64 part of `whsec_…`; a secret that is not base64 is used as its raw bytes (as fanout
 * signs).
 */
function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  try {
    return base64ToBytes(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  } catch {
    return new Uint8Array(new TextEncoder().encode(secret)); // a copy: typed as a plain ArrayBuffer everywhere
  }
}

/** True when `body` was signed with `secret` (`whsec_…`) within the tolerance. */
export async function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (tolerance > 0 && Math.abs(now - Number(timestamp)) > tolerance) return false;

  const keyBytes = secretBytes(secret);
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  // The header may carry several space-separated signatures (secret rotation); any valid v1 one will do.
  for (const entry of signatures.split(" ")) {
    const [version, signature] = entry.split(",");
    if (version !== "v1" || !signature) continue;
    let mac: Uint8Array<ArrayBuffer>;
    try {
      mac = base64ToBytes(signature);
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", key, mac, signed)) return true;
  }
  return false;
}

/**
 * The event of a delivery whose signature holds, or null: answer null with a 401 and ignore it. A
 * `webhook.test` event (sent by `testWebhook()`) belongs to no chat: acknowledge it and stop there.
 */
export async function readWebhook(
  secret: string,
  headers: HeaderSource,
  body: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent | null> {
  if (!(await verifyWebhook(secret, headers, body, options))) return null;
  return JSON.parse(body) as WebhookEvent;
}
