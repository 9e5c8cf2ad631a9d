/**
 * Input validation shared by every layer: zod issues mapped onto the public error codes, the
 * NUL-byte rule and the query-string number (`queryNumber`: every numeric query parameter is
 * parsed by it, so the rule is the same on every endpoint, docs/tasks.md "Conventions of the API"). Raises `DomainError` (lib/errors.ts), so schemas and
 * domain code validate without the HTTP layer; lib/http/validation.ts gives adapters the same
 * functions with the HTTP error.
 *
 * Maps zod issues onto the error codes of the spec ("Errors"):
 * absent (or empty) required value → 400 MISSING_FIELD; a value of the wrong type or that cannot
 * be parsed (e.g. `hours=abc`) → 400 INVALID_FORMAT; a string over its limit → 422
 * FIELD_TOO_LONG; any other rule (range, enum, e-mail, unknown field) → 422
 * VALIDATION_ERROR. The response takes the first issue's code by that priority and
 * lists every issue in `details`.
 */
import { z } from "zod";
import { DomainError, type DomainErrorCode, type DomainErrorDetail } from "./errors.js";

type ErrorCode = DomainErrorCode;
type ErrorDetail = DomainErrorDetail;

const PRIORITY: ErrorCode[] = ["MISSING_FIELD", "INVALID_FORMAT", "FIELD_TOO_LONG", "VALIDATION_ERROR"];

function fieldOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path.push(issue.keys[0]!);
  return path.join(".");
}

/** Marks a path that does not map onto the raw input (the value was transformed, e.g. "a,b" → ["a","b"]). */
const UNMAPPED = Symbol("unmapped");

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (node === undefined || node === null) return node;
    if (typeof node !== "object") return UNMAPPED;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function codeOf(issue: z.core.$ZodIssue, input: unknown): ErrorCode {
  if (issue.code === "invalid_type") {
    const value = valueAt(input, issue.path);
    return value === undefined || value === null ? "MISSING_FIELD" : "INVALID_FORMAT";
  }
  if (
    (issue.code === "invalid_value" || issue.code === "invalid_union") &&
    valueAt(input, issue.path) === undefined
  ) {
    return "MISSING_FIELD";
  }
  if (issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) <= 1) {
    const value = valueAt(input, issue.path);
    if (typeof value === "string" && value.trim() === "") return "MISSING_FIELD";
  }
  if (issue.code === "too_big" && (issue.origin === "string" || issue.origin === "array")) {
    return "FIELD_TOO_LONG";
  }
  const params = (issue as { params?: { code?: string } }).params;
  if (params?.code && PRIORITY.includes(params.code as ErrorCode)) return params.code as ErrorCode;
  return "VALIDATION_ERROR";
}

/**
 * `message` prefixed with the field's name, unless it already starts with it (a schema's own
 * message such as "service_type must be one of …"): the name is never said twice.
 */
function withField(name: string, message: string): string {
  if (message.startsWith(`${name} `)) return message;
  const last = name.split(".").pop() ?? name;
  if (last !== name && message.startsWith(`${last} `)) return `${name}${message.slice(last.length)}`;
  return `${name}: ${message}`;
}

function messageOf(issue: z.core.$ZodIssue, field: string, code: ErrorCode): string {
  const name = field || "value";
  switch (code) {
    case "MISSING_FIELD":
      return `${name} is required`;
    case "FIELD_TOO_LONG":
      return issue.code === "too_big"
        ? `${name} exceeds ${String(issue.maximum)} ${issue.origin === "array" ? "items" : "characters"}`
        : withField(name, issue.message);
    default:
      if (issue.code === "unrecognized_keys") return `${name} is not a known field`;
      return withField(name, issue.message);
  }
}

/**
 * Converts a zod error on `input` into a `DomainError` per the rules above: the code and field
 * of the first issue by priority, every issue in `details`.
 * @param prefix field name prepended to every issue's path (e.g. `files` for a nested list)
 */
export function validationError(error: z.ZodError, input: unknown, prefix = ""): DomainError {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = [prefix, ...issue.path.map(String), key].filter(Boolean).join(".");
        details.push({ field, code: "VALIDATION_ERROR", message: `${field} is not a known field` });
      }
      continue;
    }
    const field = [prefix, fieldOf(issue)].filter(Boolean).join(".");
    const code = codeOf(issue, input);
    details.push({ field, code, message: messageOf(issue, field, code) });
  }
  details.sort((a, b) => PRIORITY.indexOf(a.code) - PRIORITY.indexOf(b.code));
  const first = details[0] ?? { field: "", code: "VALIDATION_ERROR" as const, message: "invalid input" };
  return new DomainError(first.code, first.message, { field: first.field || undefined, details });
}

/**
 * Parses `input` with `schema` or throws the mapped `DomainError`; a string holding U+0000
 * anywhere in `input` is INVALID_FORMAT first (`rejectNulBytes`).
 * @returns the schema's output
 * @throws DomainError MISSING_FIELD, INVALID_FORMAT, FIELD_TOO_LONG or VALIDATION_ERROR
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): z.output<S> {
  rejectNulBytes(input, prefix);
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, input, prefix);
  return result.data;
}

/**
 * The path (`a.b.0`) of the first string in `input` — a value or an object key, at any depth —
 * that contains U+0000, or undefined. Walks iteratively, so deeply nested JSON cannot overflow
 * the stack.
 */
export function findNulByte(input: unknown): string | undefined {
  if (!containsNul(input)) return undefined;
  const stack: { value: unknown; path: string }[] = [{ value: input, path: "" }];
  const join = (base: string, key: string) => (base ? `${base}.${key}` : key);
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: join(path, String(i)) });
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\u0000")) return join(path, key.replaceAll("\u0000", "\\u0000"));
        stack.push({ value: item, path: join(path, key) });
      }
    }
  }
  return undefined;
}

/**
 * Whether any string in `input` (a value or an object key, at any depth) contains U+0000: the
 * walk of `findNulByte` without building paths, so the common case (no NUL) allocates no strings.
 */
function containsNul(input: unknown): boolean {
  if (typeof input === "string") return input.includes("\u0000");
  if (input === null || typeof input !== "object") return false;
  const stack: unknown[] = [input];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.includes("\u0000")) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === "object") {
      for (const key of Object.keys(value)) {
        if (key.includes("\u0000")) return true;
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/**
 * Refuses any string holding U+0000 (NUL), anywhere in `input`: PostgreSQL cannot store it in
 * text, and no field of this API has a use for it. Applied once for every endpoint by the handler
 * wrapper (query, path parameters, JSON body, header values), by `parseOrThrow` and by the MCP
 * tool wrapper.
 * @param input a query object, JSON body, tool arguments or a single string
 * @param prefix field name to report when `input` is itself the string (e.g. a header name)
 * @throws DomainError INVALID_FORMAT (400) whose `field` names the offending value (never its content)
 */
export function rejectNulBytes(input: unknown, prefix = ""): void {
  const at = findNulByte(input);
  if (at === undefined) return;
  const field = [prefix, at].filter(Boolean).join(".") || "value";
  throw new DomainError(
    "INVALID_FORMAT",
    `${field} contains a NUL character (U+0000), which is not allowed`,
    {
      field,
      details: [{ field, code: "INVALID_FORMAT", message: `${field} contains a NUL character (U+0000)` }],
    },
  );
}

/** A number as a query parameter may write it: an optional minus, digits, an optional decimal part. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * A query-string number. Input: the raw parameter (string) or undefined when absent.
 * Output: a number. Absent → undefined (then the field's `.optional()`/`.default()` applies,
 * or 400 MISSING_FIELD when it is required). Anything that is not written as above — empty,
 * blank (`offset=+` is a space), `abc`, `0x10`, `1e3`, `Infinity` — → 400 INVALID_FORMAT
 * (an invalid_type issue whose input is present; see `validationError`). Pipe the result
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

/**
 * Characters free text may not hold (issue 25 item 9): the C0 controls but tab, line feed and
 * carriage return (so ESC sequences cannot reach a terminal or log viewer), DEL, and the Unicode
 * bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 (which can make
 * a text read differently from what is stored, "Trojan Source", CVE-2021-42574). U+0000 has its
 * own rule (400 INVALID_FORMAT, {@link rejectNulBytes}).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const HIDDEN_CONTROLS = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F\u202A-\u202E\u2066-\u2069]/u;

/**
 * `schema` (a string schema) refusing the characters of {@link HIDDEN_CONTROLS}: 422
 * VALIDATION_ERROR naming the field and the first such character's code point.
 */
export function plainText<S extends z.ZodType<string>>(schema: S): S {
  return schema.check((ctx) => {
    const found = HIDDEN_CONTROLS.exec(ctx.value);
    if (!found) return;
    const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    ctx.issues.push({
      code: "custom",
      input: ctx.value,
      message: `contains the invisible control character U+${code}; control characters other than tab and newline, and bidirectional overrides, are not allowed`,
    });
  }) as S;
}
