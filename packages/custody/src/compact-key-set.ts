/**
 * A set of address keys that stores each key as bytes in one growing arena, indexed by an
 * open-addressing hash table of 32-bit offsets. A JS Set<string> costs ~90 bytes per 42-character
 * EVM key (string header, characters, hash-table entry); here an EVM key costs 21 bytes in the
 * arena plus 8-16 bytes of table, so a million of them fit in ~30 MB.
 *
 * Keys are encoded per chain: canonical EVM keys ("0x" + 40 hex digits) as their 20 bytes (so a
 * lookup accepts either letter case); every other key as its ASCII characters. A key that fits
 * neither (non-ASCII, or longer than 255 characters) goes to a small fallback map, so the set
 * stays exact for any input.
 *
 * An EVM set may serve up to eight members (the EVM chains of one process, evm-key-store.ts):
 * each key's record carries a byte of membership bits where a text key has its length, so an
 * address watched on seven chains is held once. A text set has the one member 0.
 */
export class CompactKeySet {
  readonly #hexKeys: boolean;
  #arena = new Uint8Array(1 << 16);
  #arenaUsed = 0;
  /** 0 = empty slot, otherwise 1 + the record's offset in the arena. */
  #slots = new Uint32Array(1 << 12);
  /** Records in the arena (distinct keys). */
  #count = 0;
  /** Keys of each member, the fallback's included. */
  readonly #sizes = [0, 0, 0, 0, 0, 0, 0, 0];
  /** Keys the arena cannot hold, with their membership bits. */
  readonly #fallback = new Map<string, number>();
  readonly #scratch = new Uint8Array(255);

  /** `hexKeys`: the keys are EVM addresses (20 bytes once hex-decoded). */
  constructor(options: { hexKeys: boolean }) {
    this.#hexKeys = options.hexKeys;
  }

  /** Distinct keys held, whatever their members. */
  get size(): number {
    return this.#count + this.#fallback.size;
  }

  /** Keys of `member`. */
  sizeOf(member: number): number {
    return this.#sizes[member] ?? 0;
  }

  /** Bytes held by the arena and the table (the fallback excluded), for every member together. */
  get byteLength(): number {
    return this.#arena.byteLength + this.#slots.byteLength;
  }

  has(key: string, member = 0): boolean {
    const bit = this.#bit(member);
    const length = this.#encode(key, 0, key.length);
    if (length < 0) return ((this.#fallback.get(key) ?? 0) & bit) !== 0;
    const slot = this.#find(length);
    if (slot < 0) return false;
    return !this.#hexKeys || ((this.#arena[(this.#slots[slot] ?? 0) - 1] ?? 0) & bit) !== 0;
  }

  /** Adds `key` to `member`; false when it was already there. */
  add(key: string, member = 0): boolean {
    return this.addRange(key, 0, key.length, member);
  }

  /**
   * Adds the key `source.slice(start, end)` without making that string unless it needs the
   * fallback: a page of a million keys read as one string (packed-keys.ts) leaves no per-key garbage.
   */
  addRange(source: string, start: number, end: number, member = 0): boolean {
    const bit = this.#bit(member);
    const length = this.#encode(source, start, end);
    if (length < 0) {
      const key = source.slice(start, end);
      const bits = this.#fallback.get(key) ?? 0;
      if ((bits & bit) !== 0) return false;
      this.#fallback.set(key, bits | bit);
      this.#sizes[member] = this.sizeOf(member) + 1;
      return true;
    }
    const slot = this.#find(length);
    if (slot >= 0) {
      // Present: on an EVM set perhaps for other members only.
      if (!this.#hexKeys) return false;
      const offset = (this.#slots[slot] ?? 0) - 1;
      const bits = this.#arena[offset] ?? 0;
      if ((bits & bit) !== 0) return false;
      this.#arena[offset] = bits | bit;
      this.#sizes[member] = this.sizeOf(member) + 1;
      return true;
    }
    // The empty slot the search ended on takes the key, unless the table grows first: the key is
    // hashed once either way.
    let empty = -1 - slot;
    if ((this.#count + 1) * 2 > this.#slots.length) {
      this.#grow();
      empty = this.#emptySlotFor(hash(this.#scratch, 0, length));
    }
    const offset = this.#append(length, this.#hexKeys ? bit : length);
    this.#slots[empty] = offset + 1;
    this.#count++;
    this.#sizes[member] = this.sizeOf(member) + 1;
    return true;
  }

  /**
   * Room for `count` keys in all, of `characters` characters in all, made at once: a first load
   * that knows its size (the watch set counts its rows) neither copies the arena nor rehashes the
   * table as it fills, and never holds an old and a new copy of either side by side. Keys already
   * held count: a second chain sharing an EVM set reserves nothing for the addresses it shares.
   */
  reserve(count: number, characters: number): void {
    const more = Math.max(0, count - this.#count);
    let slots = this.#slots.length;
    while ((this.#count + more) * 2 > slots) slots *= 2;
    if (slots > this.#slots.length) this.#rehash(slots);
    // A length (or membership) byte per key, then its 20 bytes (EVM) or its characters (ASCII).
    const bytes = this.#hexKeys ? 21 * more : Math.ceil((characters / Math.max(1, count)) * more) + more;
    const needed = this.#arenaUsed + bytes;
    if (needed > this.#arena.length) this.#resizeArena(needed);
  }

  /** The membership bit of `member`: 0 on a text set, 0-7 on an EVM set. */
  #bit(member: number): number {
    if (!Number.isInteger(member) || member < 0 || member > (this.#hexKeys ? 7 : 0)) {
      throw new Error(`CompactKeySet: no member ${member} in a ${this.#hexKeys ? "EVM" : "text"} set`);
    }
    return 1 << member;
  }

  /** Writes the key's bytes into the scratch buffer; returns their length, or -1 for the fallback. */
  #encode(source: string, start: number, end: number): number {
    const out = this.#scratch;
    const characters = end - start;
    if (
      this.#hexKeys &&
      characters === 42 &&
      source.charCodeAt(start) === 48 &&
      (source.charCodeAt(start + 1) | 0x20) === 120
    ) {
      for (let i = 0; i < 20; i++) {
        const high = hexValue(source.charCodeAt(start + 2 + 2 * i));
        const low = hexValue(source.charCodeAt(start + 3 + 2 * i));
        if (high < 0 || low < 0) return -1;
        out[i] = (high << 4) | low;
      }
      return 20;
    }
    // Hex-keyed sets keep only canonical addresses compact, so a 20-character key can never be
    // mistaken for the bytes of an address.
    if (this.#hexKeys || characters > out.length) return -1;
    for (let i = 0; i < characters; i++) {
      const code = source.charCodeAt(start + i);
      if (code > 0x7f) return -1;
      out[i] = code;
    }
    return characters;
  }

  /** Slot holding the scratch key, or -1 - the empty slot where it would go. */
  #find(length: number): number {
    const mask = this.#slots.length - 1;
    let slot = hash(this.#scratch, 0, length) & mask;
    for (;;) {
      const entry = this.#slots[slot] ?? 0;
      if (entry === 0) return -1 - slot;
      if (this.#recordEquals(entry - 1, length)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  #recordEquals(offset: number, length: number): boolean {
    const arena = this.#arena;
    // An EVM record's first byte is its membership bits; every key of an EVM set is 20 bytes.
    if (!this.#hexKeys && arena[offset] !== length) return false;
    const scratch = this.#scratch;
    for (let i = 0; i < length; i++) {
      if (arena[offset + 1 + i] !== scratch[i]) return false;
    }
    return true;
  }

  #emptySlotFor(keyHash: number): number {
    const mask = this.#slots.length - 1;
    let slot = keyHash & mask;
    while ((this.#slots[slot] ?? 0) !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  /** Appends [head, ...bytes] (head: the length, or an EVM key's membership bits); returns its offset. */
  #append(length: number, head: number): number {
    const needed = this.#arenaUsed + 1 + length;
    // Grow by a quarter: a doubling arena would hold up to 2x the memory it needs, and after a
    // reserve() of exactly the first load the next wallet would double ten million keys' worth.
    if (needed > this.#arena.length) this.#resizeArena(Math.max(needed, Math.ceil(this.#arena.length * 1.25)));
    const offset = this.#arenaUsed;
    this.#arena[offset] = head;
    this.#arena.set(this.#scratch.subarray(0, length), offset + 1);
    this.#arenaUsed = needed;
    return offset;
  }

  #resizeArena(length: number): void {
    const bigger = new Uint8Array(length);
    bigger.set(this.#arena.subarray(0, this.#arenaUsed));
    this.#arena = bigger;
  }

  /** Doubles the table (load factor stays at most 1/2). */
  #grow(): void {
    this.#rehash(this.#slots.length * 2);
  }

  /** A table of `length` slots (a power of two) holding every record. */
  #rehash(length: number): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(length);
    for (const entry of old) {
      if (entry === 0) continue;
      const offset = entry - 1;
      const length = this.#hexKeys ? 20 : (this.#arena[offset] ?? 0);
      this.#slots[this.#emptySlotFor(hash(this.#arena, offset + 1, length))] = entry;
    }
  }
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** FNV-1a over bytes, 32-bit. */
function hash(bytes: Uint8Array, start: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + length; i++) {
    h ^= bytes[i] ?? 0;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
