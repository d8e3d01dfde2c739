/**
 * A table made on an object's first write and gone with its `deleteAll()`, for objects that must
 * keep no storage once they hold nothing (flow shards, budgets): a read of one that holds nothing
 * finds no table and makes none.
 */
export class LazyTable {
  #ready = false;

  constructor(
    private readonly sql: SqlStorage,
    private readonly name: string,
    /** `CREATE TABLE IF NOT EXISTS …` and whatever else the table needs. */
    private readonly ddl: readonly string[],
  ) {}

  exists(): boolean {
    this.#ready ||=
      this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, this.name).toArray().length > 0;
    return this.#ready;
  }

  /** Makes it, unless it is there. */
  create(): void {
    if (this.exists()) return;
    for (const statement of this.ddl) this.sql.exec(statement);
    this.#ready = true;
  }

  /** The object's storage was deleted (`deleteAll()`): the table is no more. */
  dropped(): void {
    this.#ready = false;
  }
}
