/**
 * A stand-in for a value a beforeAll hook sets: every property read goes to `current()` at that
 * moment (methods bound to it), so a test file can name the value at the top, before it exists.
 * Reading it before the hook ran throws with `what`.
 */
export function late<T extends object>(what: string, current: () => T | undefined): T {
  const get = (): T => {
    const value = current();
    if (value === undefined) throw new Error(`${what} is set up in beforeAll: use it inside a test`);
    return value;
  };
  // Besides reads: `in`, spreads, Object.keys and instanceof see the value's own keys and prototype.
  return new Proxy({} as T, {
    get(_, key) {
      const target = get();
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has: (_, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(get(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
}
