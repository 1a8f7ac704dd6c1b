/**
 * A promise and the function that settles it, for a test that orders steps across concurrent work
 * (a transaction held open until the test says, a step reached). Node 20 has no Promise.withResolvers.
 */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
