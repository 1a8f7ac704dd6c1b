#!/usr/bin/env node
// The `payments` command: runs the compiled build (dist/), rebuilt first when a source changed since.
import { pathToFileURL } from "node:url";
import { buildService, currentBuild } from "../scripts/build.mjs";

const main = currentBuild() ?? (await buildService()).main;
await import(pathToFileURL(main).href);
