/**
 * A Map that forgets its least recently used entry beyond `capacity` entries, handing it to `evicted`
 * (to close what it holds).
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;
  readonly #evicted: ((value: V) => void) | undefined;

  constructor(capacity: number, evicted?: (value: V) => void) {
    this.#capacity = capacity;
    this.#evicted = evicted;
  }

  getOrCreate(key: K, create: (key: K) => V): V {
    const cached = this.#entries.get(key);
    if (cached !== undefined) {
      // Re-inserting moves the key to the end of the Map's insertion order: most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, cached);
      return cached;
    }
    const value = create(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.entries().next();
      if (!oldest.done) {
        this.#entries.delete(oldest.value[0]);
        this.#evicted?.(oldest.value[1]);
      }
    }
    return value;
  }

  /** The entry for `key`, without marking it used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Every entry's value, least recently used first. */
  values(): IterableIterator<V> {
    return this.#entries.values();
  }

  get size(): number {
    return this.#entries.size;
  }
}
