/** A Map that forgets its least recently used entry beyond `capacity` entries. */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
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
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return value;
  }

  /** The entry for `key`, without marking it used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
