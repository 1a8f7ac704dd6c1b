import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

// Served by the payments service under /dashboard/ (packages/dashboard serves `dist/`).
export default defineConfig({
  base: "/dashboard/",
  plugins: [preact()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
});
