/** The dashboard's files (docs/api.md#dashboard): served without a key, under a strict CSP. */
import { describe, expect, it } from "vitest";
import { JOB_STATES } from "../../src/core/api/job-states";
import { api } from "../helpers";

describe("GET /", () => {
  it("serves the page, its script and its styles with a strict Content-Security-Policy", async () => {
    for (const [path, type] of [
      ["/", "text/html"],
      ["/dashboard.js", "text/javascript"],
      ["/view.js", "text/javascript"],
      ["/batches.js", "text/javascript"],
      ["/chat-list.js", "text/javascript"],
      ["/chat-view.js", "text/javascript"],
      ["/flow-panel.js", "text/javascript"],
      ["/spend-panel.js", "text/javascript"],
      ["/approvals.js", "text/javascript"],
      ["/job-states.js", "text/javascript"],
      ["/dashboard.css", "text/css"],
    ]) {
      const res = await api(path!, { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain(type!);
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
    }
    const page = await (await api("/", { key: null })).text();
    expect(page).toContain('<script type="module" src="/dashboard.js"></script>');
    expect(page).not.toMatch(/<script>(?!<\/script>)/); // no inline script
    expect(page).not.toContain("style=");
  });

  it("renders API data as text only: the scripts never write HTML", async () => {
    const script = (
      await Promise.all(
        [
          "/dashboard.js",
          "/view.js",
          "/batches.js",
          "/chat-list.js",
          "/chat-view.js",
          "/flow-panel.js",
          "/spend-panel.js",
          "/approvals.js",
        ].map(async (path) => (await api(path, { key: null })).text()),
      )
    ).join("\n");
    expect(script).toContain('from "/view.js"');
    expect(script).toContain('from "/batches.js"');
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(script).toContain("sessionStorage");
    expect(script).not.toContain("localStorage");
  });

  it("serves the page the worker's list of job states, which its filter and batches read", async () => {
    const module = await (await api("/job-states.js", { key: null })).text();
    expect(module).toBe(`export const JOB_STATES = ${JSON.stringify(JOB_STATES)};\n`);
    const script = (
      await Promise.all(["/dashboard.js", "/batches.js"].map(async (path) => (await api(path, { key: null })).text()))
    ).join("\n");
    expect(script.match(/from "\/job-states\.js"/g)).toHaveLength(2);
  });
});
