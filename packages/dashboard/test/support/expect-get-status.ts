import { expect } from "vitest";
import type { Client } from "./dashboard-client.ts";

/** Every GET of `paths` by `client` answers `status`; a failure names its path. */
export async function expectGetStatus(client: Client, status: number, paths: readonly string[]): Promise<void> {
  for (const path of paths) expect((await client.call("GET", path)).status, path).toBe(status);
}

/**
 * A record of merchant `owner` at `path` (`virtual-accounts/{id}`) is 404 to `client`, a user of
 * merchant `viewer` only: under the viewer's own path (and each of its `children`), and at the
 * owner's path, the record and its list.
 */
export async function expectHiddenFromOtherMerchant(
  client: Client,
  merchants: { owner: string; viewer: string },
  path: string,
  children: readonly string[] = [],
): Promise<void> {
  const underViewer = `/merchants/${merchants.viewer}/${path}`;
  const underOwner = `/merchants/${merchants.owner}/${path}`;
  await expectGetStatus(client, 404, [
    underViewer,
    ...children.map((child) => `${underViewer}/${child}`),
    underOwner,
    underOwner.slice(0, underOwner.lastIndexOf("/")),
  ]);
}
