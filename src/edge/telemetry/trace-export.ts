/**
 * The `TraceExport` entrypoint (docs/architecture.md#traces): a chat hands a batch's spans to a
 * Worker invocation of its own and goes on; the invocation sends them to the tenant's OTLP endpoint
 * (`src/core/telemetry/exporter.ts`), billed for CPU only while it waits, where the chat would be
 * billed for the wall-clock. Each hand-over is sent by the invocation that took it; what they came
 * to is reported together, at most every 4 s per tenant from an isolate.
 *
 * The target (URL, opened headers, the secrets to redact) is kept in the isolate for 5 s like the
 * tenant's config; each export's report to the TenantDO answers the config version, so a copy of an
 * older version is read again, and a chat's latest check of the config vouches for it as for a batch.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { egressFetch } from "../../core/egress/fetch";
import { tenantName } from "../../core/objects/names";
import { TENANT_RECHECK_MS, type ConfigCheck } from "../../core/objects/tenant-cache";
import { TenantSpans, type ExportTally, type TelemetryTarget } from "../../core/telemetry/exporter";
import type { SpanRecord } from "../../core/telemetry/spans";
import { sleep } from "../../core/util/abort";

type KeptTarget = { target: TelemetryTarget | null; version: number; checkedAt: number };

const targets = new Map<string, KeptTarget>();
const queues = new Map<string, TenantSpans>();

export class TraceExport extends WorkerEntrypoint<Env> {
  /** Takes a batch's spans; they are sent after the answer, within this invocation's grace. */
  export(tenant: string, spans: SpanRecord[], check?: ConfigCheck): void {
    this.ctx.waitUntil(exportSpans(this.env, tenant, spans, check));
  }
}

async function exportSpans(env: Env, tenant: string, spans: SpanRecord[], check?: ConfigCheck): Promise<void> {
  try {
    const target = await targetOf(env, tenant, check);
    // The tenant removed `telemetry` after the batch began: nothing is exported any more.
    if (!target) return;
    await queueOf(env, tenant).add(spans, target);
  } catch (e) {
    console.warn("exporting spans failed", tenant, (e as Error).message);
  }
}

function tenantDo(env: Env, tenant: string) {
  return env.TENANT.getByName(tenantName(tenant));
}

async function targetOf(env: Env, tenant: string, check?: ConfigCheck): Promise<TelemetryTarget | null> {
  const now = Date.now();
  const kept = targets.get(tenant);
  if (kept && check && check.version === kept.version)
    kept.checkedAt = Math.max(kept.checkedAt, Math.min(check.checkedAt, now));
  if (kept && now - kept.checkedAt < TENANT_RECHECK_MS) return kept.target;
  const { version, target } = await tenantDo(env, tenant).telemetryTarget();
  targets.set(tenant, { target, version, checkedAt: now });
  return target;
}

function queueOf(env: Env, tenant: string): TenantSpans {
  let queue = queues.get(tenant);
  if (!queue) {
    queue = new TenantSpans(tenant, {
      post: egressFetch(env.ALLOW_PRIVATE_EGRESS === "true"),
      sleep: (ms) => sleep(ms, new AbortController().signal),
      now: () => Date.now(),
      report: (tally: ExportTally) => report(env, tenant, tally),
    });
    queues.set(tenant, queue);
  }
  return queue;
}

/** The report doubles as a check of the target: a changed config version drops the copy. */
async function report(env: Env, tenant: string, tally: ExportTally): Promise<void> {
  const { version } = await tenantDo(env, tenant).telemetryExported(tally);
  const kept = targets.get(tenant);
  if (!kept) return;
  if (kept.version !== version) targets.delete(tenant);
  else kept.checkedAt = Math.max(kept.checkedAt, Date.now());
}

/** Drops what the isolate keeps (tests: storage wiped between them, this isolate's memory not). */
export function forgetTraceExports(): void {
  targets.clear();
  queues.clear();
}
