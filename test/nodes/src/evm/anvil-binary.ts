import { existsSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * Path of the anvil executable shipped by `@foundry-rs/anvil`. The package's bin (`.bin/anvil`)
 * is a node wrapper that spawns the platform binary as a child; spawning the binary itself means
 * the process we start is the node, so stopping it cannot leave an orphan behind.
 * `ANVIL_BINARY` overrides the lookup (e.g. a foundryup install).
 */
export function anvilBinaryPath(): string {
  const override = process.env.ANVIL_BINARY;
  if (override) return override;
  const require = createRequire(import.meta.url);
  const wrapper = require.resolve("@foundry-rs/anvil/package.json");
  const platform = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`anvil: no binary package for ${process.platform}-${process.arch}`);
  const binaryName = process.platform === "win32" ? "anvil.exe" : "anvil";
  const binary = createRequire(wrapper).resolve(`${platform}/bin/${binaryName}`);
  if (!existsSync(binary)) throw new Error(`anvil: ${binary} is missing (was @foundry-rs/anvil installed?)`);
  return binary;
}

/** The optional dependencies of @foundry-rs/anvil, one per platform. */
const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64",
};
