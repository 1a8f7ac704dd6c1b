/** Compiles the `payments` command into dist/<id>/ and makes it the current build. */
export function buildService(): Promise<{ id: string; main: string }>;
/** The current build's main module if no input changed since it was built, else undefined. */
export function currentBuild(): string | undefined;
