/**
 * `fetch` for webhook and `callback_url` deliveries, safe against SSRF and DNS rebinding.
 *
 * Rule sources: docs/api-conventions.md "Authentication" 10 (private addresses are blocked) and
 * "Events" (a POST to `callback_url`; any 2xx counts); docs/api-conventions.md "Local development"
 * (`ALLOW_PRIVATE_CALLBACKS`). URLs were checked when registered (`outbound-url.ts`), but
 * a name may resolve elsewhere at delivery time, so the address is checked again where the
 * socket is opened:
 * - the undici Agent's `connect.lookup` resolves the name itself and refuses the connection
 *   (no TCP handshake) when any resolved address is forbidden;
 * - IP-literal hosts skip `lookup` in `net.connect`, so they are checked before the request;
 * - after connecting, the socket's `remoteAddress` is checked once more (defence in depth).
 * Redirects are never followed (`redirect: "manual"`: a 3xx is returned as is), and the
 * whole exchange, body included, is bounded by `timeoutMs` (default 10 s).
 * undici (~430 CommonJS files) is loaded by the first delivery, not with this module.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import type { Agent, buildConnector, RequestInit as UndiciRequestInit } from "undici";
import { getConfig } from "../config.js";
import { forbiddenReason } from "./ip-policy.js";
import { bareHostname, defaultLookup, type LookupFn } from "./outbound-url.js";

/** Default bound of one delivery (connect, headers and body), ms. */
export const DEFAULT_OUTBOUND_TIMEOUT_MS = 10_000;

/** Thrown when the destination is refused (forbidden address or scheme); nothing was sent. */
export class OutboundBlockedError extends Error {
  override name = "OutboundBlockedError";
  readonly code = "OUTBOUND_BLOCKED";
  /** Host name of the refused URL. */
  readonly hostname: string;
  /** The refused address, when the refusal is about one. */
  readonly address: string | undefined;
  /** `ip-policy.ts` reason (e.g. `loopback`, `ipv4Mapped:private`) or `scheme`. */
  readonly reason: string;

  constructor(hostname: string, address: string | undefined, reason: string) {
    super(
      address === undefined
        ? `Outbound request to ${hostname} refused (${reason})`
        : `Outbound request to ${hostname} refused: ${address} is a ${reason} address`,
    );
    this.hostname = hostname;
    this.address = address;
    this.reason = reason;
  }
}

/** Options of `safeFetch` on top of `RequestInit` (whose `redirect` is ignored). */
export interface SafeFetchOptions {
  /** Bound of the whole exchange, ms; default 10 000. Rejects with a `TimeoutError` DOMException. */
  timeoutMs?: number;
  /** Allow loopback/private addresses and http://; default `ALLOW_PRIVATE_CALLBACKS`. */
  allowPrivate?: boolean;
  /** Refuse anything but https://; default `!allowPrivate`. */
  requireHttps?: boolean;
  /** Host resolver used at connect time (tests); default `defaultLookup`. */
  lookup?: LookupFn;
}

function familyOf(options: LookupOptions): 0 | 4 | 6 {
  const f = options.family;
  return f === 4 || f === "IPv4" ? 4 : f === 6 || f === "IPv6" ? 6 : 0;
}

/**
 * A `net.connect` `lookup` that resolves with `lookup` and fails with
 * `OutboundBlockedError` when any address is forbidden (unless `allowPrivate`).
 */
export function guardedLookup(lookup: LookupFn, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (all) => {
        for (const a of all) {
          const reason = forbiddenReason(a.address, { allowPrivate });
          if (reason !== undefined) {
            callback(new OutboundBlockedError(hostname, a.address, reason), "", undefined);
            return;
          }
        }
        const family = familyOf(options);
        const usable: LookupAddress[] = all.filter((a) => family === 0 || a.family === family);
        const first = usable[0];
        if (first === undefined) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = "ENOTFOUND";
          callback(err, "", undefined);
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, "", undefined),
    );
  };
}

const importUndici = () => import("undici");
type Undici = Awaited<ReturnType<typeof importUndici>>;
let undiciModule: Promise<Undici> | undefined;
/** undici, imported once on first use (a failed import is tried again by the next delivery). */
function loadUndici(): Promise<Undici> {
  undiciModule ??= importUndici().catch((error: unknown) => {
    undiciModule = undefined;
    throw error;
  });
  return undiciModule;
}

function createAgent(undici: Undici, lookup: LookupFn, allowPrivate: boolean): Agent {
  const base = undici.buildConnector({ lookup: guardedLookup(lookup, allowPrivate) });
  const connect: buildConnector.connector = (options, callback) => {
    base(options, (err, socket) => {
      if (err !== null) return callback(err, null);
      const remote = socket.remoteAddress;
      const reason = remote === undefined ? "unknown" : forbiddenReason(remote, { allowPrivate });
      if (reason !== undefined) {
        socket.destroy();
        return callback(new OutboundBlockedError(options.hostname, remote, reason), null);
      }
      callback(null, socket);
    });
  };
  return new undici.Agent({ connect });
}

/** One keep-alive Agent per (resolver, allowPrivate): every pooled socket passed the check when opened. */
const agents = new WeakMap<LookupFn, Map<boolean, Agent>>();

function agentFor(undici: Undici, lookup: LookupFn, allowPrivate: boolean): Agent {
  let byMode = agents.get(lookup);
  if (byMode === undefined) {
    byMode = new Map();
    agents.set(lookup, byMode);
  }
  let agent = byMode.get(allowPrivate);
  if (agent === undefined) {
    agent = createAgent(undici, lookup, allowPrivate);
    byMode.set(allowPrivate, agent);
  }
  return agent;
}

function findBlocked(error: unknown): OutboundBlockedError | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 8 && e instanceof Error; depth++) {
    if (e instanceof OutboundBlockedError) return e;
    e = e.cause;
  }
  return undefined;
}

/**
 * Sends one request to a webhook / callback URL and returns the response unread (consume
 * or cancel its body). Redirects are returned, never followed.
 * @throws OutboundBlockedError when the scheme or a destination address is refused;
 *   a `TimeoutError` DOMException past `timeoutMs`; `TypeError("fetch failed")` for other
 *   network errors.
 */
export async function safeFetch(
  url: string | URL,
  init: RequestInit & SafeFetchOptions = {},
): Promise<Response> {
  const { timeoutMs, allowPrivate: allowOpt, requireHttps: httpsOpt, lookup, ...rest } = init;
  const allowPrivate = allowOpt ?? getConfig().ALLOW_PRIVATE_CALLBACKS;
  const requireHttps = httpsOpt ?? !allowPrivate;
  const target = new URL(url);
  const host = bareHostname(target);
  if (!(target.protocol === "https:" || (!requireHttps && target.protocol === "http:"))) {
    throw new OutboundBlockedError(host, undefined, `scheme ${target.protocol}`);
  }
  if (isIP(host) !== 0) {
    const reason = forbiddenReason(host, { allowPrivate });
    if (reason !== undefined) throw new OutboundBlockedError(host, host, reason);
  }
  const timeout = AbortSignal.timeout(timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS);
  const signal = rest.signal ? AbortSignal.any([rest.signal, timeout]) : timeout;
  const undici = await loadUndici();
  try {
    const response = await undici.fetch(target, {
      ...(rest as UndiciRequestInit),
      redirect: "manual",
      signal,
      dispatcher: agentFor(undici, lookup ?? defaultLookup, allowPrivate),
    });
    return response as unknown as Response;
  } catch (error) {
    throw findBlocked(error) ?? error;
  }
}
