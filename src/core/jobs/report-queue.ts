/**
 * Outcomes on their way from a runner to its chat. The first goes at once; those that end
 * while a report is on its way go together in the next one. Calls that end together (a batch of
 * quick ones) cost their chat one invocation, not one each, and no outcome waits longer than the
 * one report ahead of it.
 */
export class ReportQueue<T> {
  #waiting: { item: T; resolve: () => void; reject: (e: unknown) => void }[] = [];
  #sending = false;

  /** `deliver` sends one group, retrying as it sees fit; a throw fails every report in the group. */
  constructor(private readonly deliver: (items: T[]) => Promise<void>) {}

  /** Resolves once `item` was delivered; rejects with the error of the group it went in. */
  send(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#sending) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0);
        try {
          await this.deliver(group.map((g) => g.item));
          for (const g of group) g.resolve();
        } catch (e) {
          for (const g of group) g.reject(e);
        }
      }
    } finally {
      this.#sending = false;
    }
  }
}
