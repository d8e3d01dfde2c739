// @ts-check
/**
 * The demo's side-effecting tool under `npm run bot`: `send_postcard` "posts" a card (it records it).
 * The local wiring puts it under an approval rule, so the bot asks in the chat, with Approve and
 * Deny buttons, before fanout sends it. Like the weather tool, it checks fanout's signature.
 *
 *   POST /tools/postcard          {"tool_args":{"to","text"}, "job_id", …} → {"result":"Postcard to <to> is
 * on its way."}
 *   GET  /__tools/postcard/sent   → [{to, text, job_id, at}]
 */
import { Webhook } from "standardwebhooks";

/** The tool as it goes into fanout's config (`tools[]`), at `url`, signed with `secret`. */
export const postcardTool = (/** @type {string} */ url, /** @type {string} */ secret) => ({
  name: "send_postcard",
  description: "Send a postcard to someone (the local demo records it; a person approves it first).",
  parameters: {
    type: "object",
    properties: {
      to: { type: "string", description: "Who gets it" },
      text: { type: "string", description: "What it says" },
    },
    required: ["to", "text"],
  },
  url,
  timeout_seconds: 30,
  secret,
});

/** @param {import("node:http").ServerResponse} res @param {number} status @param {unknown} value */
const json = (res, status, value) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/**
 * @param {{ secret?: string }} [options] the tool's secret (`whsec_…`); without one, signatures are not checked
 * @returns {(url: URL, req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse,
 * body: string) => boolean}
 */
export function fakePostcard({ secret } = {}) {
  /** @type {{ to: string, text: string, job_id: string, at: number }[]} */
  const sent = [];
  const verifier = secret ? new Webhook(secret) : undefined;
  return function handle(url, req, res, body) {
    if (url.pathname === "/__tools/postcard/sent") return (json(res, 200, sent), true);
    if (url.pathname !== "/tools/postcard") return false;
    try {
      verifier?.verify(body, /** @type {Record<string, string>} */ (req.headers));
    } catch {
      return (
        json(res, 401, { error: "bad signature: configure this tool with the secret the demo tool was started with" }),
        true
      );
    }
    /** @type {{ tool_args?: { to?: unknown, text?: unknown }, job_id?: unknown }} */
    let call = {};
    try {
      call = JSON.parse(body);
    } catch {
      /* answered below */
    }
    const { to, text } = call.tool_args ?? {};
    if (typeof to !== "string" || typeof text !== "string")
      return (json(res, 200, { error: 'send_postcard needs {"to","text"}' }), true);
    sent.push({ to, text, job_id: String(call.job_id ?? ""), at: Date.now() });
    return (json(res, 200, { result: `Postcard to ${to} is on its way.` }), true);
  };
}
