/**
 * How many blocks one eth_getLogs may span. Providers cap a query by block range or by result
 * count, and the cap that matters moves with the traffic of the tokens queried: the window halves
 * when a span is refused and doubles back after each success, never above `max` (config.batchSize)
 * nor below one block. It lives as long as the adapter, so later scans start from what worked.
 */
export class AdaptiveBlockRange {
  private current: number;

  constructor(private readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`invalid block range limit ${max}`);
    this.current = max;
  }

  get size(): number {
    return this.current;
  }

  /** The provider refused `span` blocks; false when a single block was refused (nothing left to split). */
  shrink(span: number): boolean {
    if (span <= 1) return false;
    this.current = Math.max(1, Math.floor(span / 2));
    return true;
  }

  grow(): void {
    this.current = Math.min(this.max, this.current * 2);
  }
}
