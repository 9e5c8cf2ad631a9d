/**
 * ipaddr.js (IP address parsing, kinds and ranges), required on first use rather than imported:
 * a CommonJS package costs several ms more through the ESM loader (its exports are parsed out of
 * the source) than through `require`, and a function that never reads an address does not load
 * it at all (cold start, docs/performance.md). Read by `isLoopbackHost` (the production profile's
 * database host, the OAuth issuer of a development run, the trusted request origin) and the rate
 * limiter (IPv6 /64 subjects, lib/ratelimit/limiter.ts).
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

/**
 * Whether `hostname` designates this machine: `localhost` or a name under `.localhost` (RFC 6761
 * section 6.3), or an IP literal in the loopback range (127.0.0.0/8, ::1, and IPv4-mapped
 * ::ffff:127.x.x.x); brackets around an IPv6 literal are allowed. The one loopback test of the
 * service: the production profile (a loopback DATABASE_URL host), the OAuth issuer and redirect
 * rewriting of a development run (lib/oauth/scopes.ts) and the request origin trusted for links
 * (lib/config/request-origin.ts) all ask it, so they cannot disagree.
 * @param hostname a host name or IP literal, without a port
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const ipaddr = ipaddrLib();
  if (!ipaddr.isValid(h)) return false;
  let address = ipaddr.parse(h);
  if (address.kind() === "ipv6" && (address as Ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as Ipaddr.IPv6).toIPv4Address();
  }
  return address.range() === "loopback";
}
