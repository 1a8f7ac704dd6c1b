import { fileURLToPath } from "node:url";

/** Where `vite build` (this package's `prepare` script, run by `pnpm install`) writes the dashboard's static files. */
export const DASHBOARD_DIST_DIR = fileURLToPath(new URL("../dist/", import.meta.url));
