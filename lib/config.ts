/**
 * Every environment variable the service reads, parsed once with zod. The schema is split by
 * concern in lib/config/ (server, payments, security, notifications, accounts; loading in
 * load.ts, the production profile in profile.ts); this module is the one import path.
 *
 * Each entry carries its default next to where it is parsed; `.env.example` lists
 * the same variables. A bad value throws a `ConfigError` naming the variable, so a
 * misconfigured deployment fails at its first request instead of misbehaving.
 */
export * from "./config/load.js";
export * from "./config/profile.js";
