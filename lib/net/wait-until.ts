/**
 * Vercel's `waitUntil` (@vercel/functions): keeps a serverless instance alive until `promise`
 * settles, after the response is sent; a no-op elsewhere (local host, tests). Input: a promise;
 * output: none. Never throws for a promise.
 *
 * Loaded on the first call, and only the package's `wait-until.js` (with its `get-context.js`),
 * not the package index, which also loads its cache, OIDC, purge and database-pool helpers
 * (~13 ms of CPU at import on this machine, docs/performance.md "Cold start"). The package's
 * exports map lists only its index, so the file is required by its path beside the index; if a
 * future version moves it, the index is required instead.
 */
import { createRequire } from "node:module";
import path from "node:path";

type WaitUntil = (promise: Promise<unknown>) => void;

const requireCjs = createRequire(import.meta.url);
let loaded: WaitUntil | undefined;

function load(): WaitUntil {
  try {
    const index = requireCjs.resolve("@vercel/functions");
    return (requireCjs(path.join(path.dirname(index), "wait-until.js")) as { waitUntil: WaitUntil })
      .waitUntil;
  } catch {
    return (requireCjs("@vercel/functions") as typeof import("@vercel/functions")).waitUntil;
  }
}

/** Hands `promise` to the platform's `waitUntil` (see the module comment). */
export function waitUntil(promise: Promise<unknown>): void {
  loaded ??= load();
  loaded(promise);
}
