/**
 * The client IP address, taken from the platform's forwarded headers only as
 * configured (`TRUST_PROXY`): on Vercel `x-real-ip` (set by Vercel, not the client);
 * behind another proxy the last hop of `x-forwarded-for`; otherwise the socket
 * address that the local host passes in `SOCKET_IP_HEADER` (it overwrites any value
 * a client sends).
 */
import { type Config, getConfig } from "../config.js";

/** Internal header through which the local host passes the TCP peer address. */
export const SOCKET_IP_HEADER = "x-local-socket-ip";

/** The caller's IP address, or `unknown`. */
export function clientIp(request: Request, config: Config = getConfig()): string {
  const mode = config.TRUST_PROXY === "auto" ? (config.VERCEL ? "vercel" : "socket") : config.TRUST_PROXY;
  const h = request.headers;
  if (mode === "vercel") {
    const ip = h.get("x-real-ip") ?? h.get("x-vercel-forwarded-for")?.split(",")[0];
    if (ip) return ip.trim();
  } else if (mode === "x-forwarded-for") {
    const hops = h.get("x-forwarded-for")?.split(",");
    const last = hops?.[hops.length - 1]?.trim();
    if (last) return last;
  }
  return h.get(SOCKET_IP_HEADER) ?? "unknown";
}
