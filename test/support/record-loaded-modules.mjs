// `node --import` this file to append the URL of every ES module the process loads to the file
// named by MP_LOADED_MODULES: what a `payments` command really loads, checked by
// test/cli/command-modules.test.ts. The hooks run on their own thread, where this file is loaded
// again and must not register itself a second time.
import { appendFileSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

if (isMainThread) register(import.meta.url);

export async function load(url, context, nextLoad) {
  if (process.env.MP_LOADED_MODULES) appendFileSync(process.env.MP_LOADED_MODULES, `${url}\n`);
  return nextLoad(url, context);
}
