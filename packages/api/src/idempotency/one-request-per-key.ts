/**
 * Runs the requests that share an idempotency key (per merchant) one after the other in this process.
 *
 * A concurrent duplicate must wait for the first request and replay its answer. The database alone
 * makes it wait, but only once it reaches the key's row: by then it has run the route's `prepare`
 * (a wallet creation has taken a wallet index), and which duplicate reaches the row first is up to
 * the scheduler. On a loaded machine the winner could be one that took a later index than two others:
 * the wallet then kept that later index and the earlier ones waited for later creations. Queued here
 * first, a duplicate prepares only once the first has answered, and gives back what a replay does
 * not use before the next one takes it. Across processes the database's wait still decides.
 */
export class OneRequestPerKey {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(merchantId: string, key: string, request: () => Promise<T>): Promise<T> {
    const id = `${merchantId}\n${key}`;
    const previous = this.tails.get(id);
    const current = previous ? previous.then(request) : request();
    const tail = current.then(
      () => {},
      () => {},
    );
    this.tails.set(id, tail);
    try {
      return await current;
    } finally {
      // The last of the queue removes it: the map holds only keys with a request in progress.
      if (this.tails.get(id) === tail) this.tails.delete(id);
    }
  }
}
