/**
 * Job ids a runner finished lately, oldest forgotten first. A queue copy that
 * arrives after its job's fast path is done is then dropped without a claim
 * round trip to the chat. Memory only: after eviction the claim answers instead.
 */
export class RecentIds {
  readonly #ids = new Set<string>();

  constructor(private readonly limit: number) {}

  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.limit) this.#ids.delete(this.#ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }
}
