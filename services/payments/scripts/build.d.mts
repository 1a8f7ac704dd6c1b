/** Compiles the `payments` command into dist/<id>/ and makes it the current build. */
export function buildService(): Promise<{ id: string; main: string }>;
/** The current build's main module if no input changed since it was built, else undefined. */
export function currentBuild(): string | undefined;
/** Compiles one TypeScript entry into outDir as the service is compiled; resolves to the module's path. */
export function bundleEntry(entry: string, outDir: string): Promise<string>;
