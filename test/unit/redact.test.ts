import { describe, expect, it } from "vitest";
import { redact, redactDeep, redactor, secretForms } from "../../src/core/util/redact";

const SECRET = "sk-canary-5f2a9c";
const b64 = (text: string) => btoa(text);
const hex = (text: string) => [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("");

describe("redact", () => {
  it("takes every occurrence of each secret out of a remote's text", () => {
    expect(redact("auth: Bearer sk-abcdef123 and again sk-abcdef123", ["sk-abcdef123"])).toBe(
      "auth: Bearer *** and again ***",
    );
    expect(redact("token 4242:ABCDEFGH in /bot4242:ABCDEFGH/sendMessage", [undefined, "4242:ABCDEFGH"])).toBe(
      "token *** in /bot***/sendMessage",
    );
  });

  it("takes out the whole of two secrets that overlap, and keeps two that only touch apart", () => {
    expect(redact("x abcdefgh12345678yz x", ["abcdefgh12", "12345678yz"])).toBe("x *** x");
    expect(redact("sk-abcdef123sk-abcdef123", ["sk-abcdef123"])).toBe("******");
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

  describe("JSON- and HTML-escaped", () => {
    // An AWS-style secret key: `/`, `+` and `=` are the characters encoders escape.
    const KEY = "AKIA/wJalrXUtnFEMI+bPxRfiCY=K7MDENG";
    const unicode = (text: string, upper = false) =>
      [...text]
        .map((c) => c.charCodeAt(0).toString(16).padStart(4, "0"))
        .map((h) => `\\u${upper ? h.toUpperCase() : h}`)
        .join("");
    const decimal = (text: string) => [...text].map((c) => `&#${c.codePointAt(0)};`).join("");
    const hexRef = (text: string, x = "x", zeros = "") =>
      [...text].map((c) => `&#${x}${zeros}${c.codePointAt(0)!.toString(16)};`).join("");

    it("finds a secret with `/` written `\\/` by a JSON encoder, in a JSON document that stays valid", () => {
      const doc = `{"echo":"${KEY.replace(/\//g, "\\/")}","n":1}`;
      expect(doc).toContain("AKIA\\/wJal");
      const out = redact(doc, [KEY]);
      expect(out).toBe('{"echo":"***","n":1}');
      expect(JSON.parse(out)).toEqual({ echo: "***", n: 1 });
    });

    it("finds a secret with any or every character \\u-escaped, in lower or upper hex", () => {
      expect(redact(`x ${unicode(KEY)} y`, [KEY])).toBe("x *** y");
      expect(redact(`x ${unicode(KEY, true)} y`, [KEY])).toBe("x *** y");
      // Some encoders escape only `+`, `=`, `<`, `>`, `&`, `'` or non-ASCII: a few characters.
      const some = KEY.replace("+", "\\u002b").replace("=", "\\u003D").replace("/", "\\/");
      expect(redact(`[${some}]`, [KEY])).toBe("[***]");
    });

    it("finds a secret as JSON.stringify writes it: quotes, backslashes and control characters escaped", () => {
      const odd = 'quote"back\\slash\ttab\u0001ctl';
      const written = JSON.stringify({ echo: odd });
      expect(written).not.toContain(odd);
      expect(JSON.parse(redact(written, [odd]))).toEqual({ echo: "***" });
    });

    it("finds a secret as HTML numeric references, decimal and hex, either case, with leading zeros", () => {
      expect(redact(`<p>AKIA&#47;wJalrXUtnFEMI&#43;bPxRfiCY&#61;K7MDENG</p>`, [KEY])).toBe("<p>***</p>");
      expect(redact(`<p>AKIA&#x2F;wJalrXUtnFEMI&#x2b;bPxRfiCY&#X3D;K7MDENG</p>`, [KEY])).toBe("<p>***</p>");
      expect(redact(`<p>AKIA&#00047;wJalrXUtnFEMI&#x002B;bPxRfiCY=K7MDENG</p>`, [KEY])).toBe("<p>***</p>");
      expect(redact(decimal(KEY), [KEY])).toBe("***");
      expect(redact(hexRef(KEY), [KEY])).toBe("***");
      expect(redact(hexRef(KEY, "X", "00").toUpperCase(), [KEY])).toBe("***");
    });

    it("finds a secret as HTML named references: &amp; &lt; &gt; &quot; &#39; &apos; &sol; &plus; &equals;", () => {
      const odd = `a&b<c>d"e'f/g+h=i`;
      expect(redact("x a&amp;b&lt;c&gt;d&quot;e&#39;f&sol;g&plus;h&equals;i y", [odd])).toBe("x *** y");
      expect(redact("x a&amp;b&lt;c&gt;d&quot;e&apos;f/g+h=i y", [odd])).toBe("x *** y");
      expect(redact(`x ${odd} y`, [odd])).toBe("x *** y");
    });

    it("finds a secret escaped by an HTML encoder, then by a JSON one, and its base64 form with `\\/`", () => {
      const odd = "it's/a+secret";
      const layered = JSON.stringify({ html: "it&#39;s&#47;a&#43;secret" }).replace(/\//g, "\\/");
      expect(redact(layered, [odd])).toBe('{"html":"***"}');
      expect(redact("it&#39;s\\/a\\u002bsecret", [odd])).toBe("***");
      // Bytes whose base64 holds `/`: `?>` and `~?` make sextets 62 and 63.
      const binary = "tok~?>~?>~?>~en";
      const encoded = b64(`Bearer ${binary} and more`);
      expect(encoded).toContain("/Pn4/Pn4/");
      const out = redact(encoded.replace(/\//g, "\\/"), [binary]);
      expect(out).toContain("***");
      for (const form of secretForms(binary)) expect(out.replace(/\\\//g, "/")).not.toContain(form);
    });

    it("finds a secret that holds an escape itself, as written and escaped once more", () => {
      const odd = "pass&amp;word\\u0041";
      expect(redact(`[${odd}]`, [odd])).toBe("[***]");
      expect(redact(`[pass&amp;amp;word\\u0041]`, [odd])).toBe("[***]");
      expect(redact(JSON.stringify([odd]), [odd])).toBe('["***"]');
    });

    it("leaves the escapes of a text without a secret as they were", () => {
      const text = String.raw`{"a":"x\/y \u00e9 &amp; &#47; &nosuch; \\"}`;
      expect(redact(text, [KEY])).toBe(text);
      expect(redact(`${text} ${unicode(KEY)} ${text}`, [KEY])).toBe(`${text} *** ${text}`);
    });
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
