/** Request bodies: bounded reading (413 PAYLOAD_TOO_LARGE) and JSON parsing (400 INVALID_FORMAT). */
import { ApiError } from "./errors.js";

/**
 * Reads the body as UTF-8 text, refusing more than `limit` bytes (413) whether or not
 * Content-Length is sent.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(limit: number): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `Request body exceeds ${limit} bytes`, {
    extra: { max_bytes: limit },
  });
}

/** Parses a JSON body; empty → `{}`; anything but an object → 400 INVALID_FORMAT. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_FORMAT", "Request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("INVALID_FORMAT", "Request body must be a JSON object");
  }
  return value;
}
