/**
 * ipaddr.js (IP address parsing, kinds and ranges), required on first use rather than imported:
 * a CommonJS package costs several ms more through the ESM loader (its exports are parsed out of
 * the source) than through `require`, and a function that never reads an address does not load
 * it at all (cold start, docs/performance.md). Read by the production profile (loopback database
 * hosts, lib/config/profile.ts) and the rate limiter (IPv6 /64 subjects, lib/ratelimit/limiter.ts).
 */
import { createRequire } from "node:module";
import type Ipaddr from "ipaddr.js";

const requireCjs = createRequire(import.meta.url);
let ipaddrModule: typeof Ipaddr | undefined;

/** The ipaddr.js module, loaded by the first call. */
export function ipaddrLib(): typeof Ipaddr {
  ipaddrModule ??= requireCjs("ipaddr.js") as typeof Ipaddr;
  return ipaddrModule;
}
