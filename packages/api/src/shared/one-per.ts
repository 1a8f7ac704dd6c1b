/**
 * `create(key)` made once per key object and kept as long as the key lives: per-app state (one per
 * database handle, one per deriver) without a module-level singleton shared by every app in a process.
 */
export function onePer<K extends object, V>(create: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = create(key);
      made.set(key, value);
    }
    return value;
  };
}
