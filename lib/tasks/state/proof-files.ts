/**
 * Proof files of a completed task (`POST /api/task-complete` `proof_files`, docs/api-conventions.md
 * "Admin operations"): the input schema, strict decoding and content-based type checks.
 *
 * Decisions:
 * - `content` is STANDARD base64 (RFC 4648 §4): only `[A-Za-z0-9+/]`, length a multiple of 4,
 *   `=` padding only at the end and only as needed. No whitespace or line breaks (a wrapped
 *   encoding such as `base64` CLI output must be unwrapped), no base64url (`-`, `_`). A leading
 *   `data:<mime>;base64,` prefix (a data URL) is tolerated and stripped; when it names a MIME
 *   type, that type must agree with `type`. Non-canonical trailing bits are not rejected.
 *   Bad base64 → 400 INVALID_FORMAT on `proof_files.<i>.content`.
 * - Field names use the dotted paths of lib/http/validation.ts (`proof_files.0.content`), so
 *   schema errors and decoding errors name fields the same way.
 * - Sizes count DECODED bytes. Empty file → 422 VALIDATION_ERROR; one file over
 *   {@link MAX_PROOF_FILE_BYTES} or all files over {@link MAX_PROOF_TOTAL_BYTES} → 413
 *   PAYLOAD_TOO_LARGE (with `field`); both are checked before anything is decoded.
 *   More than {@link MAX_PROOF_FILES} files → 422 FIELD_TOO_LONG (what a too-long array maps to).
 * - The declared `type` is case-insensitive, its parameters are dropped (`image/jpg` is read as
 *   `image/jpeg`) and it must be one of {@link ALLOWED_PROOF_MIME_TYPES} (else 422).
 * - The type is checked BY CONTENT: binary types must be detected by `file-type` as the declared
 *   type or an equivalent (`image/heic` ≡ `image/heif`, `image/png` ≡ `image/apng`, `video/mp4` ≡
 *   `video/x-m4v`); a mismatch ("declared image/png but content is application/pdf") or an
 *   unrecognised content → 422 VALIDATION_ERROR on `proof_files.<i>.content`.
 * - Text types (text/plain, text/csv, application/json) have no magic bytes: the content must be
 *   valid UTF-8 (a BOM is allowed), without NUL or other C0 control characters except tab, LF, CR
 *   and form feed; a `charset` parameter other than UTF-8/US-ASCII is refused; application/json
 *   must parse. Content that `file-type` recognises as one of the allowed BINARY types is refused
 *   as a lie; other `file-type` guesses are ignored for text (its weak signatures give false
 *   positives on text, e.g. a CSV starting with "MAC address" looks like Monkey's Audio).
 * - Filenames: 1..200 code points, no `/` or `\`, no control characters (C0, DEL, C1), no
 *   bidirectional override/isolate characters (extension spoofing), not `.`/`..`, not blank.
 *   Duplicate names and extensions that disagree with `type` are allowed.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { NewProofFile } from "../../db/schema/proof-files.js";
import { DomainError } from "../../errors.js";
import { prefixedId } from "../../ids.js";
import { parseOrThrow } from "../../validation.js";
import { codePointLength, FIELD_TOO_LONG, strictBody } from "./schemas.js";

/** Most proof files in one request. */
export const MAX_PROOF_FILES = 10;
/** Largest proof file, decoded bytes (3 MiB). */
export const MAX_PROOF_FILE_BYTES = 3 * 1024 * 1024;
/**
 * Largest sum of the proof files of one request, decoded bytes. Vercel caps request bodies at
 * 4.5 MB and base64 grows content by 4/3, so 4 MB decoded is already more than one request can
 * carry (~3.3 MB decoded fits); this bound protects callers that do not go through Vercel.
 */
export const MAX_PROOF_TOTAL_BYTES = 4_000_000;
/** Longest filename, Unicode code points. */
export const MAX_PROOF_FILENAME_LENGTH = 200;
/** Longest `type`, characters. */
export const MAX_PROOF_TYPE_LENGTH = 100;

/** Types whose content `file-type` recognises by magic bytes. */
export const BINARY_PROOF_MIME_TYPES = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/heic",
  "image/heif",
  "application/pdf",
  "video/mp4",
  "video/quicktime",
] as const;
/** Types without magic bytes, checked as UTF-8 text (and JSON). */
export const TEXT_PROOF_MIME_TYPES = ["text/plain", "text/csv", "application/json"] as const;
/** Every accepted (normalised) proof file type. */
export const ALLOWED_PROOF_MIME_TYPES = [...BINARY_PROOF_MIME_TYPES, ...TEXT_PROOF_MIME_TYPES] as const;
/** One of {@link ALLOWED_PROOF_MIME_TYPES}. */
export type ProofMimeType = (typeof ALLOWED_PROOF_MIME_TYPES)[number];

/** Aliases of declared types, lowercase. */
const MIME_ALIASES: Record<string, ProofMimeType> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
};

/** `file-type` results also accepted for a declared binary type. */
const EQUIVALENT_DETECTIONS: Partial<Record<ProofMimeType, readonly string[]>> = {
  "image/png": ["image/apng"],
  "image/heic": ["image/heif", "image/heic-sequence", "image/heif-sequence"],
  "image/heif": ["image/heic", "image/heif-sequence", "image/heic-sequence"],
  "video/mp4": ["video/x-m4v"],
};

const TOKEN = "[A-Za-z0-9!#$&^_.+-]+";
/** `type/subtype` with optional `; name=value` parameters (RFC 9110 media-type). */
const MIME_RE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\]*"))*$`);
/** Standard base64 with mandatory padding (length % 4 checked separately). */
const BASE64_RE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** `data:[<mime>][;param=value]*;base64,` */
const DATA_URL_RE = /^data:([^;,]*)((?:;[^;,=]+=[^;,]*)*);base64,/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const BAD_FILENAME_CHAR_RE = /[/\\\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The base64 part of `content` and the MIME type of its data-URL prefix, if any. */
function splitDataUrl(content: string): { base64: string; dataUrlType: string | undefined } {
  const m = DATA_URL_RE.exec(content);
  if (!m) return { base64: content, dataUrlType: undefined };
  return { base64: content.slice(m[0].length), dataUrlType: m[1] || undefined };
}

/** Why `base64` is not strict standard base64, or undefined when it is. */
function base64Problem(base64: string): string | undefined {
  if (base64.length % 4 === 0 && BASE64_RE.test(base64)) return undefined;
  if (/\s/.test(base64)) return "must not contain whitespace or line breaks";
  if (/[-_]/.test(base64)) return "must be standard base64 (+ and /), not base64url (- and _)";
  if (/[^A-Za-z0-9+/=]/.test(base64)) return "contains characters outside the base64 alphabet";
  return "has incorrect length or padding (length must be a multiple of 4, '=' only at the end)";
}

/** Decoded length of valid standard base64. */
function decodedLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/** Lowercase `type/subtype` and the lowercase `charset` parameter of a declared type. */
function parseMime(type: string): { essence: string; charset: string | undefined } {
  const [head = "", ...params] = type.split(";");
  const lower = head.trim().toLowerCase();
  let charset: string | undefined;
  for (const p of params) {
    const [name = "", value = ""] = p.split("=");
    if (name.trim().toLowerCase() === "charset") charset = value.trim().replace(/^"|"$/g, "").toLowerCase();
  }
  return { essence: MIME_ALIASES[lower] ?? lower, charset };
}

const isAllowed = (t: string): t is ProofMimeType =>
  (ALLOWED_PROOF_MIME_TYPES as readonly string[]).includes(t);
const isText = (t: ProofMimeType) => (TEXT_PROOF_MIME_TYPES as readonly string[]).includes(t);

/** One proof file as sent: `{ filename, type, content }` (content base64). */
export const proofFileInputSchema = strictBody({
  filename: z
    .string()
    .min(1, { error: "filename must not be empty" })
    .check((ctx) => {
      const length = codePointLength(ctx.value);
      if (length > MAX_PROOF_FILENAME_LENGTH) {
        ctx.issues.push({
          code: "too_big",
          origin: "string",
          maximum: MAX_PROOF_FILENAME_LENGTH,
          inclusive: true,
          input: ctx.value,
          message: `filename exceeds ${MAX_PROOF_FILENAME_LENGTH} characters (got ${length})`,
          params: { code: FIELD_TOO_LONG, max_length: MAX_PROOF_FILENAME_LENGTH, length },
        });
      } else if (BAD_FILENAME_CHAR_RE.test(ctx.value)) {
        ctx.issues.push({
          code: "custom",
          input: ctx.value,
          message: "filename must not contain path separators (/ or \\) or control characters",
        });
      } else if (ctx.value.trim() === "" || ctx.value === "." || ctx.value === "..") {
        ctx.issues.push({ code: "custom", input: ctx.value, message: "filename is not a valid file name" });
      }
    })
    .meta({ description: "File name, with extension (no path).", maxLength: MAX_PROOF_FILENAME_LENGTH }),
  type: z
    .string()
    .max(MAX_PROOF_TYPE_LENGTH)
    .regex(MIME_RE, { error: "type must be a MIME type such as image/jpeg" })
    .meta({
      description: `MIME type of the file, checked against its content. One of ${ALLOWED_PROOF_MIME_TYPES.join(", ")} (image/jpg is read as image/jpeg).`,
      examples: ["image/jpeg"],
    }),
  content: z
    .string()
    .check((ctx) => {
      const { base64 } = splitDataUrl(ctx.value);
      const problem = base64Problem(base64);
      if (problem) {
        ctx.issues.push({
          code: "custom",
          input: ctx.value,
          message: `content is not valid base64: ${problem}`,
          params: { code: "INVALID_FORMAT" },
        });
      } else if (base64 === "") {
        ctx.issues.push({ code: "custom", input: ctx.value, message: "content must not be empty" });
      }
    })
    .meta({
      description: `File content, standard base64 (a data: URL prefix is accepted). At most ${MAX_PROOF_FILE_BYTES} bytes decoded.`,
    }),
});
/** One proof file as sent. */
export type ProofFileInput = z.infer<typeof proofFileInputSchema>;

/** The `proof_files` array: at most {@link MAX_PROOF_FILES} items. */
export const proofFilesInputSchema = z.array(proofFileInputSchema).max(MAX_PROOF_FILES);

/** A proof file after decoding and checks, ready to store. */
export interface DecodedProofFile {
  filename: string;
  /** Normalised MIME type, one of {@link ALLOWED_PROOF_MIME_TYPES}. */
  mimeType: ProofMimeType;
  bytes: Buffer;
  sizeBytes: number;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
}

/** Size and digest of `bytes` as a {@link DecodedProofFile} (e.g. for generated proofs). */
export function describeProofFile(
  filename: string,
  mimeType: ProofMimeType,
  bytes: Buffer,
): DecodedProofFile {
  return {
    filename,
    mimeType,
    bytes,
    sizeBytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}

const invalid = (field: string, message: string) => new DomainError("VALIDATION_ERROR", message, { field });

/** Checks text content; returns the problem or undefined. */
function textProblem(bytes: Buffer, mimeType: ProofMimeType): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return `${mimeType} content must be valid UTF-8`;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: detecting binary content
  if (/[\u0000-\u0008\u000b\u000e-\u001f]/.test(text)) {
    return `${mimeType} content contains control characters (binary data?)`;
  }
  if (mimeType === "application/json") {
    try {
      JSON.parse(text);
    } catch (e) {
      return `application/json content is not valid JSON (${e instanceof Error ? e.message : String(e)})`;
    }
  }
  return undefined;
}

/**
 * Validates (with {@link proofFilesInputSchema}, so raw input is fine), decodes and checks
 * the proof files of a request, in order; throws the `DomainError` of the first problem.
 * `field` is the name of the array in error fields (default `proof_files`).
 */
export async function decodeProofFiles(inputs: unknown, field = "proof_files"): Promise<DecodedProofFile[]> {
  if (Array.isArray(inputs) && inputs.length > MAX_PROOF_FILES) {
    throw new DomainError("FIELD_TOO_LONG", `${field} exceeds ${MAX_PROOF_FILES} items`, { field });
  }
  const files = parseOrThrow(proofFilesInputSchema, inputs, field);

  // Sizes first, from the base64 lengths, before allocating anything.
  const parts = files.map((f, i) => {
    const { base64, dataUrlType } = splitDataUrl(f.content);
    const size = decodedLength(base64);
    if (size > MAX_PROOF_FILE_BYTES) {
      throw new DomainError(
        "PAYLOAD_TOO_LARGE",
        `${field}.${i} is ${size} bytes; the limit is ${MAX_PROOF_FILE_BYTES} bytes per file`,
        { field: `${field}.${i}.content`, extra: { max_bytes: MAX_PROOF_FILE_BYTES } },
      );
    }
    return { base64, dataUrlType, size };
  });
  const total = parts.reduce((sum, p) => sum + p.size, 0);
  if (total > MAX_PROOF_TOTAL_BYTES) {
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `${field} total ${total} bytes; the limit is ${MAX_PROOF_TOTAL_BYTES} bytes per request`,
      { field, extra: { max_bytes: MAX_PROOF_TOTAL_BYTES } },
    );
  }

  const out: DecodedProofFile[] = [];
  for (const [i, f] of files.entries()) {
    const { base64, dataUrlType } = parts[i]!;
    const typeField = `${field}.${i}.type`;
    const contentField = `${field}.${i}.content`;

    const { essence, charset } = parseMime(f.type);
    if (!isAllowed(essence)) {
      throw invalid(
        typeField,
        `${typeField}: ${essence} is not an accepted proof file type; accepted: ${ALLOWED_PROOF_MIME_TYPES.join(", ")}`,
      );
    }
    if (dataUrlType !== undefined && parseMime(dataUrlType).essence !== essence) {
      throw invalid(contentField, `${contentField}: data URL says ${dataUrlType} but type is ${f.type}`);
    }

    const bytes = Buffer.from(base64, "base64");
    if (bytes.length === 0) throw invalid(contentField, `${contentField}: file is empty`);

    // file-type (and its tokenizer packages) loads with the first proof file (cold start).
    const { fileTypeFromBuffer } = await import("file-type");
    const detected = (await fileTypeFromBuffer(bytes))?.mime;
    if (isText(essence)) {
      if (charset !== undefined && !["utf-8", "utf8", "us-ascii"].includes(charset)) {
        throw invalid(typeField, `${typeField}: charset ${charset} is not accepted; send UTF-8`);
      }
      if (detected !== undefined && (BINARY_PROOF_MIME_TYPES as readonly string[]).includes(detected)) {
        throw invalid(contentField, `${contentField}: declared ${essence} but content is ${detected}`);
      }
      const problem = textProblem(bytes, essence);
      if (problem) throw invalid(contentField, `${contentField}: ${problem}`);
    } else if (detected === undefined) {
      throw invalid(
        contentField,
        `${contentField}: declared ${essence} but the content is not a recognisable ${essence} file`,
      );
    } else if (detected !== essence && !EQUIVALENT_DETECTIONS[essence]?.includes(detected)) {
      throw invalid(contentField, `${contentField}: declared ${essence} but content is ${detected}`);
    }

    out.push(describeProofFile(f.filename, essence, bytes));
  }
  return out;
}

/** Insert rows of `files` for task `taskId` (ids `pf_<random>`, `position` their upload order). */
export function proofFileRows(taskId: string, files: readonly DecodedProofFile[]): NewProofFile[] {
  return files.map((f, position) => ({
    id: prefixedId("pf"),
    position,
    taskId,
    filename: f.filename,
    mimeType: f.mimeType,
    sizeBytes: f.sizeBytes,
    sha256: f.sha256,
    content: f.bytes,
  }));
}

/** The `proof_files_data` items of the status response (content standard base64). */
export function proofFilesData(
  rows: readonly { filename: string; mimeType: string; content: Uint8Array }[],
): { filename: string; type: string; content: string }[] {
  return rows.map((r) => ({
    filename: r.filename,
    type: r.mimeType,
    content: Buffer.from(r.content.buffer, r.content.byteOffset, r.content.byteLength).toString("base64"),
  }));
}
