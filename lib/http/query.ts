/**
 * Query-string values that are not strings. Every numeric query parameter is parsed here,
 * so the rule is the same on every endpoint (README "Conventions of the API").
 */
import { z } from "zod";

/** A number as a query parameter may write it: an optional minus, digits, an optional decimal part. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * A query-string number. Input: the raw parameter (string) or undefined when absent.
 * Output: a number. Absent → undefined (then the field's `.optional()`/`.default()` applies,
 * or 400 MISSING_FIELD when it is required). Anything that is not written as above — empty,
 * blank (`offset=+` is a space), `abc`, `0x10`, `1e3`, `Infinity` — → 400 INVALID_FORMAT
 * (an invalid_type issue whose input is present; lib/http/validation.ts). Pipe the result
 * into the field's rules, e.g. `queryNumber().pipe(z.number().int().min(0))`: a fraction
 * where an integer is expected is 400 INVALID_FORMAT, a value out of range 422
 * VALIDATION_ERROR.
 */
export const queryNumber = () =>
  z.preprocess(
    (v) => (typeof v === "string" ? (DECIMAL.test(v) ? Number(v) : Number.NaN) : v),
    z.number({
      error: (issue) =>
        issue.input === undefined ? undefined : "must be a number written in decimal digits (e.g. 20 or 2.5)",
    }),
  );
