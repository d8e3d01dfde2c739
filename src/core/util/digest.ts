/** SHA-256 digests and their hex form: key digests, fingerprints, ticket and definition digests. */

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

export const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

export const sha256Hex = async (text: string): Promise<string> => hex(await sha256(text));
