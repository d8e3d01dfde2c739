/**
 * One chat's storage as the rest of the chat sees it: its tables, its address
 * and limits from `meta`, and the questions every room asks before it acts
 * (does the chat exist, is it being deleted). Built once per instance and
 * handed to every room, so no room needs a bundle of getters of its own.
 */
import { chatLimits } from "../../../src/core/config/chat-limits";
import { defaultConfig } from "../../../src/core/config/schema";
import type { ChatLimits } from "../../../src/core/jobs/messages";
import { callRunnerName, chatName, tenantName } from "../../../src/core/objects/names";
import { runTargetsOf, tenantConfigOf, type TenantReads } from "../../../src/core/objects/tenant-cache";
import type { TenantConfig } from "../../../src/core/config/schema";
import type { RunTarget } from "../../../src/core/tools/executors";
import { Children } from "./children";
import { BatchRows } from "./batch-rows";
import { EVENT_TTL_MS, Events } from "./events";
import { Idempotency } from "./idempotency";
import { JobStore } from "./job-store";
import { LogStore } from "./log-rows";
import { Notifications } from "./notifications";
import { nextPurgeAt, purgeExpired } from "./retention";
import { ensureSchema, hasSchema, readLimits, readMeta, writeMeta } from "./schema";
import { transact } from "./sql-cache";
import { Timers } from "./timers";
import { TreeSlots } from "./tree-slots";
import { Turns } from "./turns";
import { UsageDays } from "./usage-days";

/** The change committed whatever follows it: a failure here is logged, never thrown at its caller. */
function runAfterCommit(run: () => void): void {
  try {
    run();
  } catch (e) {
    console.error("what followed a committed change failed", e);
  }
}

/** `meta` key present while the chat is being deleted (see `../deletion`). */
export const DELETION_META_KEY = "deletion";

export class ChatStore {
  readonly sql: SqlStorage;
  readonly jobs: JobStore;
  readonly log: LogStore;
  readonly timers: Timers;
  readonly idempotency: Idempotency;
  readonly children: Children;
  readonly treeSlots: TreeSlots;
  readonly turns: Turns;
  /** What a batch keeps beside its jobs: where its events go, what it reran, the turn handed over. */
  readonly batches: BatchRows;
  readonly events: Events;
  readonly notifications: Notifications;
  readonly usage: UsageDays;

  constructor(
    readonly ctx: DurableObjectState,
    /** Read at each use: the object's bindings (tests swap them to inject faults). */
    readonly env: () => Env,
  ) {
    this.sql = ctx.storage.sql;
    this.jobs = new JobStore(this.sql);
    this.log = new LogStore(this.sql);
    this.timers = new Timers(this.sql, ctx.storage);
    this.idempotency = new Idempotency(this.sql);
    this.children = new Children(this.sql);
    this.treeSlots = new TreeSlots(this.sql);
    this.turns = new Turns(this.sql);
    this.batches = new BatchRows(this.sql);
    this.events = new Events(this.sql, this.batches);
    this.notifications = new Notifications(this.sql);
    this.usage = new UsageDays(this.sql);
  }

  /** Whether the chat has storage: a chat that never admitted anything has none, and reads leave none. */
  exists(): boolean {
    return hasSchema(this.sql);
  }

  /** Creates (or upgrades) the schema before a first write. */
  ensure(): void {
    ensureSchema(this.sql);
  }

  beingDeleted(): boolean {
    return this.exists() && readMeta(this.sql, DELETION_META_KEY) !== undefined;
  }

  /** A chat that exists and is not being deleted: anything else reads as 404 and admits nothing. */
  readable(): boolean {
    return this.exists() && !this.beingDeleted();
  }

  meta(key: string): string | undefined {
    return readMeta(this.sql, key);
  }

  setMeta(key: string, value: string): void {
    writeMeta(this.sql, key, value);
  }

  address(): { tenant: string; chat_id: string } {
    return { tenant: readMeta(this.sql, "tenant")!, chat_id: readMeta(this.sql, "chat_id")! };
  }

  /** 0 for a top-level chat; a child's depth below it. */
  level(): number {
    return Number(readMeta(this.sql, "level") ?? 0);
  }

  isChild(): boolean {
    return readMeta(this.sql, "parent_chat_id") !== undefined;
  }

  /** The limits the chat last admitted jobs under (the defaults for a chat that never admitted any). */
  limits(): ChatLimits {
    return readLimits(this.sql) ?? chatLimits(defaultConfig());
  }

  /** The `spawn_task` `tools` subset this chat was started with, if any. */
  toolBound(): string[] | null {
    return this.exists() ? (JSON.parse(readMeta(this.sql, "tools") ?? "null") as string[] | null) : null;
  }

  /** What waits for the transaction under way (outermost first) to commit; dropped if it rolls back. */
  readonly #afterCommit: (() => void)[][] = [];

  transaction<T>(fn: () => T): T {
    this.#afterCommit.push([]);
    let done: (() => void)[] | undefined;
    try {
      const result = transact(this.ctx.storage, this.sql, fn);
      done = this.#afterCommit.pop();
      return result;
    } catch (e) {
      this.#afterCommit.pop(); // rolled back: what it would have followed never happened
      throw e;
    } finally {
      // An inner transaction's work waits for the outer one; the outermost runs it.
      if (done && this.#afterCommit.length > 0) this.#afterCommit.at(-1)!.push(...done);
      else if (done) for (const run of done) runAfterCommit(run);
    }
  }

  /**
   * Runs `fn` once the transaction under way commits (at once outside one): for what must follow only a
   * change that stays, such as the spans of a job's end leaving the chat.
   */
  afterCommit(fn: () => void): void {
    const current = this.#afterCommit.at(-1);
    if (current) current.push(fn);
    else runAfterCommit(fn);
  }

  /** Moves the `purge` timer to the moment the oldest kept row (job, key, turn, settled event) expires. */
  schedulePurge(now: number): void {
    const at = Math.min(
      nextPurgeAt(this.jobs, this.idempotency, this.turns, this.limits().retention_seconds * 1000, now) ?? Infinity,
      (this.events.oldestSettled() ?? Infinity) + EVENT_TTL_MS,
    );
    if (Number.isFinite(at)) this.timers.set("purge", "", Math.max(at, now));
  }

  /**
   * The `purge` timer: what expired goes. `empty` when the chat holds nothing any more, not even
   * an event or message still waiting for delivery, so it can return to no storage.
   */
  purge(now: number): "empty" | "kept" {
    this.events.purge(now);
    this.notifications.purge(now);
    const undelivered = this.events.pendingCount() + this.notifications.pendingCount();
    // What outlives the jobs: their events, and their usage with the day each ended.
    const outlive = (jobIds: string[]) => {
      this.events.keepFromJobs(jobIds, now);
      this.usage.keep(this.jobs.many(jobIds), now);
    };
    const left = purgeExpired(
      this.jobs,
      this.idempotency,
      this.turns,
      this.limits().retention_seconds * 1000,
      now,
      outlive,
    );
    this.batches.forgetGone();
    if (left === "empty" && !undelivered) return "empty";
    this.schedulePurge(now);
    return "kept";
  }

  chat(chatId: string) {
    return this.env().CHAT.getByName(chatName(this.address().tenant, chatId));
  }

  tenant() {
    return this.env().TENANT.getByName(tenantName(this.address().tenant));
  }

  /**
   * The tenant's config and tool targets from the isolate's copy, checked every 5 s
   * (`src/core/objects/tenant-cache`).
   */
  tenantConfig(): Promise<TenantConfig> {
    return tenantConfigOf(this.address().tenant, () => this.#tenantReads());
  }

  runTargets(toolNames: string[]): Promise<Record<string, RunTarget>> {
    return runTargetsOf(this.address().tenant, toolNames, () => this.#tenantReads());
  }

  /** The RPC type mapping cannot carry the config schema's open JSON fields; the values are plain JSON. */
  #tenantReads(): TenantReads {
    return this.tenant() as unknown as TenantReads;
  }

  /** The chat's runner object `index` (docs/architecture.md#where-a-call-runs). */
  callRunner(index: number) {
    const { tenant, chat_id } = this.address();
    return this.env().CALL_RUNNER.getByName(callRunnerName(tenant, chat_id, index));
  }
}
