/**
 * Which IP addresses outbound requests (webhooks, `callback_url`) may reach.
 *
 * Rule sources: docs/api-conventions.md "Authentication" 10 (`callback_url` protection:
 * private addresses are blocked) and docs/api-conventions.md "Local development"
 * (`ALLOW_PRIVATE_CALLBACKS=true` lets callbacks use loopback addresses, dev/tests only).
 *
 * Policy, on ipaddr.js's `range()` names:
 * - IPv4: only `unicast` is allowed. Refused: `private` (10/8, 172.16/12, 192.168/16),
 *   `loopback` (127/8), `linkLocal` (169.254/16, incl. the 169.254.169.254 metadata
 *   service), `carrierGradeNat` (100.64/10), `multicast`, `broadcast`, `unspecified`
 *   (0/8), `reserved` (192.0.0/24, the documentation ranges 192.0.2/24, 198.51.100/24 and
 *   203.0.113/24, 192.88.99/24, benchmarking 198.18/15, 240/4), `as112`, `amt`.
 *   Documentation ranges are refused: nothing legitimate listens there.
 * - IPv6: must be `unicast` *and* inside global unicast 2000::/3, which also refuses
 *   IPv4-compatible `::a.b.c.d` and unassigned space that ipaddr.js calls `unicast`.
 *   Refused classes include `loopback` (::1), `unspecified` (::), `linkLocal` (fe80::/10),
 *   `uniqueLocal` (fc00::/7, incl. AWS IMDS fd00:ec2::254), `multicast`,
 *   `deprecatedSiteLocal`, `reserved` (incl. documentation 2001:db8::/32, 3fff::/20),
 *   `discard`, `rfc6145`, `benchmarking`, `orchid2`, `segmentRouting`, ...
 * - Embedded IPv4 is judged by the IPv4 rules: IPv4-mapped `::ffff:a.b.c.d`, NAT64
 *   well-known prefix `64:ff9b::/96` (RFC 6052), 6to4 `2002:AABB:CCDD::/48` (RFC 3056)
 *   and Teredo `2001:0::/32` (RFC 4380: both the server and the de-obfuscated client
 *   address must pass). The local-use NAT64 prefix `64:ff9b:1::/48` is refused outright.
 * - Anything that does not parse as an IP address is refused (fail closed).
 *
 * `allowPrivate` (ALLOW_PRIVATE_CALLBACKS) relaxes only `loopback`, `private` and
 * `uniqueLocal`; link-local (cloud metadata), CGNAT, unspecified, multicast and reserved
 * stay refused, and fd00:ec2::254 is refused even then.
 */
import ipaddr from "ipaddr.js";

/** Options of the address checks. */
export interface AddressPolicyOptions {
  /** Also allow loopback, RFC 1918 and unique-local addresses (local development only). */
  allowPrivate?: boolean;
}

/** IPv4 ranges that `allowPrivate` lets through. */
const DEV_V4 = new Set(["loopback", "private"]);
/** IPv6 ranges that `allowPrivate` lets through. */
const DEV_V6 = new Set(["loopback", "uniqueLocal"]);

/** Cloud metadata addresses refused even with `allowPrivate` (169.254.169.254 is link-local anyway). */
const METADATA_V6 = [ipaddr.IPv6.parse("fd00:ec2::254")];

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([(high >> 8) & 0xff, high & 0xff, (low >> 8) & 0xff, low & 0xff]);
}

function reasonV4(addr: ipaddr.IPv4, allowPrivate: boolean): string | undefined {
  const range = addr.range();
  if (range === "unicast") return undefined;
  if (allowPrivate && DEV_V4.has(range)) return undefined;
  return range;
}

function reasonV6(addr: ipaddr.IPv6, allowPrivate: boolean): string | undefined {
  if (METADATA_V6.some((m) => m.toNormalizedString() === addr.toNormalizedString())) return "metadata";
  const range = addr.range();
  const p = addr.parts;
  const embedded = (label: string, v4: ipaddr.IPv4): string | undefined => {
    const inner = reasonV4(v4, allowPrivate);
    return inner === undefined ? undefined : `${label}:${inner}`;
  };
  switch (range) {
    case "ipv4Mapped":
      return embedded("ipv4Mapped", addr.toIPv4Address());
    case "rfc6052":
      return addr.match(NAT64_WELL_KNOWN) ? embedded("nat64", v4FromWords(p[6]!, p[7]!)) : "nat64LocalUse";
    case "6to4":
      return embedded("6to4", v4FromWords(p[1]!, p[2]!));
    case "teredo":
      return (
        embedded("teredoServer", v4FromWords(p[2]!, p[3]!)) ??
        embedded("teredoClient", v4FromWords(~p[6]! & 0xffff, ~p[7]! & 0xffff))
      );
    case "unicast":
      return addr.match(GLOBAL_UNICAST_V6) ? undefined : "notGlobalUnicast";
    default:
      return allowPrivate && DEV_V6.has(range) ? undefined : range;
  }
}

/**
 * Why `ip` may not be contacted (an ipaddr.js range name such as `private`, `loopback`,
 * `ipv4Mapped:loopback`, or `invalid`), or `undefined` when it may.
 */
export function forbiddenReason(ip: string, options: AddressPolicyOptions = {}): string | undefined {
  const allowPrivate = options.allowPrivate ?? false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip.trim());
  } catch {
    return "invalid";
  }
  return addr.kind() === "ipv4"
    ? reasonV4(addr as ipaddr.IPv4, allowPrivate)
    : reasonV6(addr as ipaddr.IPv6, allowPrivate);
}

/** True when outbound requests must not reach `ip` (see the module comment for the policy). */
export function isForbiddenAddress(ip: string, options: AddressPolicyOptions = {}): boolean {
  return forbiddenReason(ip, options) !== undefined;
}
