import { buildService, currentBuild } from "../../services/payments/scripts/build.mjs";

/**
 * Before any test file: the `payments` build that the CLI and process tests run is current, built
 * once here rather than by the first of several files starting it at the same time.
 */
export default async function setup(): Promise<void> {
  if (currentBuild() === undefined) await buildService();
}
