/**
 * Text a remote answered with, before it is stored or shown: a server that echoes the request
 * (a debugging endpoint on the same origin, which a key holder may point a stored secret at)
 * must not hand the secret to whoever reads the job. Secrets shorter than 8 characters are left
 * alone: they would match ordinary text, and no real credential is that short.
 */
export const REDACTED = "***";

export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out;
}
