/**
 * Upper bounds on the numbers a tenant or a model may set (docs/api.md#limits-and-bounds). Without them a limit of
 * 9007199254740991 s made a deadline no Date can hold: job records answered 503 and every later alarm
 * of the chat threw, stopping its deadlines and webhooks. Imported by the config schema and the
 * built-in tools' arguments, so one number holds everywhere.
 */

/** Every time limit, a tool's `timeout_seconds`, `job_timeout` and `wait.seconds`: 30 days. */
export const MAX_SECONDS = 2_592_000;

/** `limits.retention_seconds`: a year. */
export const MAX_RETENTION_SECONDS = 31_536_000;

/**
 * `limits.max_response_bytes`: a tool's answer is read into an isolate of 128 MB
 * (docs/architecture.md#platform-rules).
 */
export const MAX_RESPONSE_BYTES = 4_194_304;

/**
 * `limits.max_body_bytes`: 640 KiB, room for one call's largest arguments (512 KiB) and their
 * envelope. Reading and parsing a request body costs about 12 ms of CPU per MB in workerd, on top
 * of about 35 ms for a request of 32 calls: 1 MiB bodies cost 48–51 ms, at the 50 ms no input may
 * (red team, round 4: 7.75 MB bodies, allowed by the 10 MiB bound before, cost 124 ms each).
 */
export const MAX_BODY_BYTES = 655_360;

/** A glob of `agents.*.tools` or `permission.task`: matching costs up to |name| × |glob| steps. */
export const MAX_GLOB_CHARS = 128;

/** Entries of `agents.*.tools` and of `permission.task`: each one is matched against every name. */
export const MAX_GLOBS = 64;

/** Names of tools, agents, MCP servers and flow rules (docs/api.md#names-and-agent-profiles). */
export const NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,47}$/;
