import { describe, expect, it } from "vitest";
import { redact, redactDeep, redactor, secretForms } from "../../src/util/redact";

const SECRET = "sk-canary-5f2a9c";
const b64 = (text: string) => btoa(text);
const hex = (text: string) => [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("");

describe("redact", () => {
  it("takes every occurrence of each secret out of a remote's text", () => {
    expect(redact("auth: Bearer sk-abcdef123 and again sk-abcdef123", ["sk-abcdef123"])).toBe("auth: Bearer *** and again ***");
    expect(redact("token 4242:ABCDEFGH in /bot4242:ABCDEFGH/sendMessage", [undefined, "4242:ABCDEFGH"])).toBe("token *** in /bot***/sendMessage");
  });

  it("leaves secrets too short to be real alone, so ordinary words survive", () => {
    expect(redact("the key is ok", ["ok", ""])).toBe("the key is ok");
  });

  it("finds a secret base64- and base64url-encoded at any offset inside a longer encoded text", () => {
    for (const prefix of ["", "B", "Be", "Bearer ", "Authorization: Bearer "]) {
      const encoded = b64(`${prefix}${SECRET} and more`);
      const out = redact(encoded, [SECRET]);
      expect(out, prefix).toContain("***");
      // What is left decodes to nothing that holds the secret.
      expect(out.includes(b64(SECRET).slice(0, 12)), prefix).toBe(false);
      const url = encoded.replace(/\+/g, "-").replace(/\//g, "_");
      expect(redact(url, [SECRET]), prefix).toContain("***");
    }
  });

  it("finds a secret percent-encoded and in hex, either case", () => {
    const odd = "p@ss word/with+chars";
    expect(redact(`q=${encodeURIComponent(odd)}&x=1`, [odd])).toBe("q=***&x=1");
    expect(redact(`q=${encodeURIComponent(odd).toLowerCase()}`, [odd])).toBe("q=***");
    expect(redact(`hex ${hex(SECRET)} HEX ${hex(SECRET).toUpperCase()}`, [SECRET])).toBe("hex *** HEX ***");
  });

  it("lists each form once and none shorter than a secret may be", () => {
    const forms = secretForms(SECRET);
    expect(new Set(forms).size).toBe(forms.length);
    expect(forms).toContain(SECRET);
    expect(forms).toContain(hex(SECRET));
    expect(forms.every((f) => f.length >= 8)).toBe(true);
  });

  it("redacts every string of a structure: content parts, a model's tool-call arguments", () => {
    const parts = [
      { type: "resource", resource: { uri: "echo://auth", text: `Bearer ${SECRET}` } },
      { type: "image", mimeType: "image/png", data: b64(`Bearer ${SECRET}`) },
    ];
    const out = redactDeep(parts, redactor([SECRET]));
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out[0]!.resource!.text).toBe("Bearer ***");
    expect((out[1] as { data: string }).data).toContain("***");
  });
});
