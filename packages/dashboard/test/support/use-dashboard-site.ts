import type { Router } from "express";
import { type ApiHarness, type HarnessOptions, startApiHarness } from "../../../../test/support/api-harness.ts";
import { useStarted } from "../../../../test/support/use-started.ts";
import { type DashboardSite, dashboardRouterOf, listenDashboard } from "./dashboard-client.ts";

/**
 * `router()` served for the calling describe block: started in a beforeAll registered now (so after
 * the hooks, registered before, that start what the router needs), stopped in its afterAll (before
 * those stop it). It stands for the site from the start (see useStarted).
 */
export function useDashboardSite(router: () => Router): DashboardSite {
  return useStarted(
    "the dashboard site",
    () => listenDashboard(router()),
    (site) => site.close(),
  );
}

/**
 * The opening most dashboard API test files share: one API harness started with `options` and the
 * dashboard served on it (see dashboardRouterOf), for the calling describe block.
 */
export function useServedDashboard(options: HarnessOptions = {}): { api: ApiHarness; dashboard: DashboardSite } {
  const api = useStarted(
    "the API harness",
    () => startApiHarness(options),
    (started) => started.stop(),
  );
  return { api, dashboard: useDashboardSite(() => dashboardRouterOf(api)) };
}
