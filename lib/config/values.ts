/**
 * The zod parsers of environment values shared by the configuration groups (functions: each
 * builds its schema when the configuration schema is built, on first use): booleans
 * (`true/false/1/0/yes/no`, empty = default), bounded integers and numbers with a default,
 * optional strings and URLs (blank = unset, trimmed).
 */
import { z } from "zod";

/** A boolean variable: `true`, `1`, `yes` are true; `false`, `0`, `no` false; unset or empty: `fallback`. */
export const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : v === "true" || v === "1" || v === "yes"));

/** An integer variable in [`min`, `max`], `fallback` when unset. */
export const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** A number variable in [`min`, `max`], `fallback` when unset. */
export const num = (fallback: number, min = 0, max = Number.MAX_VALUE) =>
  z.coerce.number().min(min).max(max).default(fallback);

/** A string variable, trimmed; unset or blank: undefined. */
export const optionalString = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** A URL variable, trimmed; unset or blank: undefined; anything else must be a URL. */
export const optionalUrl = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()))
    .pipe(z.url().optional());
