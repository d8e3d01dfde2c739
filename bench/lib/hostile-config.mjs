/**
 * Hostile configuration documents for `npm run drill`: numbers past every bound, globs, schema
 * patterns no linear-time engine runs or too large to run, and every spelling of a non-public egress target.
 * Each is sent as
 * a PUT or a PATCH by a tenant holding a valid key; a deployed fanout (ALLOW_PRIVATE_EGRESS=false)
 * must refuse every one with a 400, store nothing, and keep answering other tenants at once.
 */

const LIMITS = [
  "max_calls",
  "max_parallel_subagents",
  "max_subagents_per_tree",
  "max_depth",
  "max_queued_subagents",
  "max_active_jobs_per_chat",
  "max_wait_seconds",
  "default_timeout_seconds",
  "tool_job_timeout_seconds",
  "subordinate_job_timeout_seconds",
  "max_job_timeout_seconds",
  "subagent_idle_seconds",
  "max_tokens_per_job",
  "max_result_chars",
  "max_stored_result_bytes",
  "max_response_bytes",
  "max_body_bytes",
  "max_job_ids",
  "retention_seconds",
];
/** Past every bound of every limit (not integers, negative, or beyond 2^53). */
const HUGE = [1e308, 2 ** 53 + 2, 1e21, -1, 0.5];
/** Past the bound of one kind of limit only. */
const PAST = {
  seconds: [2_592_001, Number.MAX_SAFE_INTEGER],
  retention_seconds: [31_536_001, Number.MAX_SAFE_INTEGER],
};

/** The n-th value past `limit`'s bound. */
function pastBound(limit, n) {
  const own = limit === "retention_seconds" ? PAST.retention_seconds : limit.endsWith("_seconds") ? PAST.seconds : [];
  const values = [...HUGE, ...own];
  return values[n % values.length];
}

/** The first is valid (and, matched in linear time, harmless); the others are past the 128-character bound. */
const STALL_GLOBS = ["*a*a*a*a*a*a*a*b", `${"*".repeat(128)}b`, "?".repeat(129), "a".repeat(129)];
/** Each refused: RE2 cannot run it, it is not valid, or it compiles to too many steps (fixed counts). */
const REFUSED_PATTERNS = [
  "^(a)\\1$",
  "(?=a)b",
  "(?<=a)b",
  "(?!x)y",
  ".{5000}y",
  "[a-z]{1000}[0-9]{1000}",
  "(?:.{100}){30}",
  "(",
  "a".repeat(1025),
];

/** Non-public egress targets in every spelling the egress rules must catch. */
export const PRIVATE_URLS = [
  "http://example.com/",
  "https://localhost/",
  "https://localhost./",
  "https://localhost.:8443/",
  "https://foo.localhost/",
  "https://foo.localhost./",
  "https://127.0.0.1/",
  "https://127.1/",
  "https://2130706433/",
  "https://0x7f.0.0.1/",
  "https://0177.0.0.1/",
  "https://10.0.0.1/",
  "https://172.16.0.1/",
  "https://192.168.1.1/",
  "https://169.254.169.254/",
  "https://100.64.0.1/",
  "https://0.0.0.0/",
  "https://192.0.0.1/",
  "https://192.0.0.170/",
  "https://192.0.2.1/",
  "https://198.18.0.1/",
  "https://198.19.255.255/",
  "https://198.51.100.1/",
  "https://203.0.113.1/",
  "https://224.0.0.1/",
  "https://239.255.255.250/",
  "https://240.0.0.1/",
  "https://255.255.255.255/",
  "https://[::1]/",
  "https://[::]/",
  "https://[fe80::1]/",
  "https://[fec0::1]/",
  "https://[fc00::1]/",
  "https://[fd12:3456::1]/",
  "https://[ff02::1]/",
  "https://[ff00::]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:7f00:1]/",
  "https://[::127.0.0.1]/",
  "https://[64:ff9b::127.0.0.1]/",
  "https://[64:ff9b::a00:1]/",
  "https://[2002:7f00:1::]/",
  "https://[2002:c0a8:101::1]/",
  "https://[2001:db8::1]/",
  "https://[100::1]/",
];

/** `$defs.a0 = {anyOf: [{$ref: a1}, {$ref: a1}]}`, `depth` deep: validating anything takes 2^depth steps. */
function fanOut(depth) {
  const $defs = { [`a${depth}`]: { type: "string" } };
  for (let i = 0; i < depth; i++)
    $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
  return { type: "object", properties: { q: { $ref: "#/$defs/a0" } }, $defs };
}

const base = { tools: [], limits: {} };
const tool = (over) => ({ name: "t", url: "https://tools.example/t", ...over });

/** The i-th hostile request for /v1/config: `{method, body, refuse}`, `refuse` false for the one valid glob. */
export function hostileConfig(i) {
  const method = i % 2 === 0 ? "PUT" : "PATCH";
  const pick = Math.floor(i / 2) % 6;
  const n = Math.floor(i / 12);
  switch (pick) {
    case 0: {
      const limit = LIMITS[n % LIMITS.length];
      return {
        method,
        body: { ...base, limits: { [limit]: pastBound(limit, Math.floor(n / LIMITS.length)) } },
        refuse: true,
      };
    }
    case 1:
      return { method, body: { tools: [tool({ timeout_seconds: pastBound("timeout_seconds", n) })] }, refuse: true };
    case 2: {
      const glob = STALL_GLOBS[n % STALL_GLOBS.length];
      const agents =
        n % 3 === 0
          ? { a: { tools: Array.from({ length: 65 }, (_, k) => `t${k}`) } }
          : { a: { tools: [glob], permission: { task: [[glob, "allow"]] } } };
      return { method, body: { agents }, refuse: n % 3 === 0 || glob !== STALL_GLOBS[0] };
    }
    case 3: {
      const pattern = REFUSED_PATTERNS[n % REFUSED_PATTERNS.length];
      const shapes = [
        // Fixed counts, many per schema: each fits, together they are past the schema's steps.
        {
          type: "object",
          properties: {
            q: {
              type: "string",
              allOf: Array.from({ length: 20 + (n % 30) }, (_, k) => ({ pattern: `.{${999 - k}}y` })),
            },
          },
        },
        { type: "object", properties: { q: { type: "string", pattern } } },
        { type: "object", patternProperties: { [pattern]: {} } },
        // Behind a reference to a member no keyword names: the validator still reaches it.
        { type: "object", properties: { q: { $ref: "#/hidden" } }, hidden: { type: "string", pattern } },
        fanOut(20),
      ];
      const parameters = shapes[n % shapes.length];
      return { method, body: { tools: [tool({ parameters })] }, refuse: true };
    }
    case 4: {
      const url = PRIVATE_URLS[n % PRIVATE_URLS.length];
      const where = n % 5;
      const body =
        where === 0
          ? { tools: [tool({ url })] }
          : where === 1
            ? { mcp_servers: [{ name: "m", url }] }
            : where === 2
              ? { llm: { base_url: url, model: "x", api_key: "k" } }
              : where === 3
                ? { webhook: { url } }
                : { telegram: { bot_token: "x", api_base_url: url } };
      return { method, body, refuse: true };
    }
    default:
      return {
        method,
        body: { builtins: { http_request: { allowed_origins: [PRIVATE_URLS[n % PRIVATE_URLS.length]] } } },
        refuse: true,
      };
  }
}
