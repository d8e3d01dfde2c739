/**
 * `GET /`: the dashboard (docs/api.md#dashboard), nine static files and the list of job states, served by the worker
 * with a strict Content-Security-Policy: no inline script or style, nothing
 * from other origins, connections (fetch and WebSocket) to this origin only.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
// wrangler's bundler (esbuild) claims .js and .css files whatever the Text rule says; the import
// attribute makes them text there, and the wrangler.toml rule does the same under vitest.
import page from "./assets/index.html" with { type: "text" };
import styles from "./assets/dashboard.css" with { type: "text" };
import script from "./assets/dashboard.js" with { type: "text" };
import view from "./assets/view.js" with { type: "text" };
import batches from "./assets/batches.js" with { type: "text" };
import chatList from "./assets/chat-list.js" with { type: "text" };
import chatView from "./assets/chat-view.js" with { type: "text" };
import flowPanel from "./assets/flow-panel.js" with { type: "text" };
import spendPanel from "./assets/spend-panel.js" with { type: "text" };
import approvals from "./assets/approvals.js" with { type: "text" };
import { JOB_STATES } from "../../core/api/job-states";

/** The page's list of job states: the worker's one list (src/core/api/job-states.ts), as a module. */
export const jobStatesModule = `export const JOB_STATES = ${JSON.stringify(JOB_STATES)};\n`;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const serve = (body: string, type: string) => () =>
  new Response(body, {
    headers: {
      "content-type": type,
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-cache",
    },
  });

export const dashboardRoutes = new Hono<AppEnv>()
  .get("/", serve(page, "text/html; charset=utf-8"))
  .get("/dashboard.js", serve(script, "text/javascript; charset=utf-8"))
  .get("/view.js", serve(view, "text/javascript; charset=utf-8"))
  .get("/batches.js", serve(batches, "text/javascript; charset=utf-8"))
  .get("/chat-list.js", serve(chatList, "text/javascript; charset=utf-8"))
  .get("/chat-view.js", serve(chatView, "text/javascript; charset=utf-8"))
  .get("/flow-panel.js", serve(flowPanel, "text/javascript; charset=utf-8"))
  .get("/spend-panel.js", serve(spendPanel, "text/javascript; charset=utf-8"))
  .get("/approvals.js", serve(approvals, "text/javascript; charset=utf-8"))
  .get("/job-states.js", serve(jobStatesModule, "text/javascript; charset=utf-8"))
  .get("/dashboard.css", serve(styles, "text/css; charset=utf-8"));
