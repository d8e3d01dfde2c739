/**
 * The chat's event records (SPEC §5.5, §6): `subagent.started` and
 * `subagent.finish` are written here as the hand-back; webhook delivery and
 * the live stream read them once events land.
 */
export type EventRow = { seq: number; type: string; data: string; created_at: number };

export class Events {
  constructor(private readonly sql: SqlStorage) {}

  record(type: string, data: Record<string, unknown>, now: number): void {
    this.sql.exec(`INSERT INTO events (type, data, created_at) VALUES (?, ?, ?)`, type, JSON.stringify(data), now);
  }

  all(): { seq: number; type: string; data: Record<string, unknown>; created_at: string }[] {
    return this.sql
      .exec<EventRow>(`SELECT * FROM events ORDER BY seq`)
      .toArray()
      .map((r) => ({ seq: r.seq, type: r.type, data: JSON.parse(r.data) as Record<string, unknown>, created_at: new Date(r.created_at).toISOString() }));
  }

  oldest(): number | undefined {
    return this.sql.exec<{ at: number | null }>(`SELECT MIN(created_at) AS at FROM events`).one().at ?? undefined;
  }

  purgeBefore(cutoff: number): void {
    this.sql.exec(`DELETE FROM events WHERE created_at <= ?`, cutoff);
  }
}
