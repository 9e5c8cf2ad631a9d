import { createHash } from "node:crypto";
import { inflateSync } from "node:zlib";
import { fileTypeFromBuffer } from "file-type";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../lib/errors.js";
import { type ApiError, fromDomainError } from "../../lib/http/errors.js";
import { crc32, sampleProofPng } from "../../lib/tasks/sample-proof.js";
import {
  decodeProofFiles,
  MAX_PROOF_FILE_BYTES,
  MAX_PROOF_FILES,
  MAX_PROOF_TOTAL_BYTES,
  proofFileInputSchema,
  proofFileRows,
  proofFilesData,
  proofFilesInputSchema,
} from "../../lib/tasks/state/proof-files.js";

const b64 = (data: Buffer | string) => Buffer.from(data).toString("base64");
const png = sampleProofPng("SANDBOX-TEST-1").bytes;
// SOI + APP0 JFIF header: enough for file-type.
const jpeg = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
  0x00, 0x00, 0xff, 0xd9,
]);
const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

/** The HTTP form (code, status, field) of the DomainError thrown by decoding `files`. */
async function failure(files: unknown): Promise<ApiError> {
  try {
    await decodeProofFiles(files);
  } catch (e) {
    if (e instanceof DomainError) return fromDomainError(e);
    throw e;
  }
  throw new Error("expected decodeProofFiles to throw");
}

describe("sampleProofPng", () => {
  it("is a real PNG that file-type recognises, deterministic per task id", async () => {
    const a = sampleProofPng("SANDBOX-ABC");
    expect(a.mimeType).toBe("image/png");
    expect(a.filename).toBe("sandbox-proof-SANDBOX-ABC.png");
    expect((await fileTypeFromBuffer(a.bytes))?.mime).toBe("image/png");
    expect(sampleProofPng("SANDBOX-ABC").bytes.equals(a.bytes)).toBe(true);
    expect(sampleProofPng("SANDBOX-XYZ").bytes.equals(a.bytes)).toBe(false);
    expect(a.bytes.length).toBeLessThan(1024);
  });

  it("has valid chunk CRCs and 64x64 RGB pixel data", () => {
    const { bytes } = sampleProofPng("SANDBOX-ABC");
    let off = 8;
    const types: string[] = [];
    let idat = Buffer.alloc(0);
    while (off < bytes.length) {
      const len = bytes.readUInt32BE(off);
      const type = bytes.toString("latin1", off + 4, off + 8);
      expect(bytes.readUInt32BE(off + 8 + len)).toBe(crc32(bytes.subarray(off + 4, off + 8 + len)));
      if (type === "IDAT") idat = Buffer.concat([idat, bytes.subarray(off + 8, off + 8 + len)]);
      types.push(type);
      off += 12 + len;
    }
    expect(types).toEqual(["IHDR", "tEXt", "IDAT", "IEND"]);
    expect(bytes.readUInt32BE(16)).toBe(64);
    expect(bytes.readUInt32BE(20)).toBe(64);
    expect(inflateSync(idat).length).toBe(64 * (1 + 64 * 3));
  });

  it("matches the reference CRC-32", () => {
    expect(crc32(Buffer.from("123456789"))).toBe(0xcbf43926);
  });
});

describe("decodeProofFiles: accepted files", () => {
  it("decodes PNG, JPEG, PDF, JSON and CSV with size and sha256", async () => {
    const csv = "MAC address,seen\n00:11:22:33:44:55,yes\n";
    const out = await decodeProofFiles([
      { filename: "front.png", type: "image/png", content: b64(png) },
      { filename: "door.jpg", type: "image/jpg", content: b64(jpeg) },
      { filename: "report.pdf", type: "application/pdf", content: b64(pdf) },
      { filename: "data.json", type: "application/json", content: b64('{"ok":true,"é":"ü"}') },
      { filename: "rows.csv", type: "text/csv; charset=utf-8", content: b64(csv) },
    ]);
    expect(out.map((f) => f.mimeType)).toEqual([
      "image/png",
      "image/jpeg",
      "application/pdf",
      "application/json",
      "text/csv",
    ]);
    expect(out[0]!.bytes.equals(png)).toBe(true);
    expect(out[0]!.sizeBytes).toBe(png.length);
    expect(out[0]!.sha256).toBe(createHash("sha256").update(png).digest("hex"));
    expect(out[4]!.bytes.toString("utf8")).toBe(csv);
  });

  it("accepts and strips a data: URL prefix", async () => {
    const [file] = await decodeProofFiles([
      { filename: "a.png", type: "image/png", content: `data:image/png;base64,${b64(png)}` },
    ]);
    expect(file!.bytes.equals(png)).toBe(true);
  });

  it("accepts an empty array and plain text", async () => {
    expect(await decodeProofFiles([])).toEqual([]);
    const [t] = await decodeProofFiles([
      { filename: "notes.txt", type: "Text/Plain", content: b64("hi\r\n\tthere") },
    ]);
    expect(t!.mimeType).toBe("text/plain");
  });

  it("builds rows and the status response shape", async () => {
    const files = await decodeProofFiles([{ filename: "front.png", type: "image/png", content: b64(png) }]);
    const rows = proofFileRows("TASK-1", files);
    expect(rows[0]).toMatchObject({ taskId: "TASK-1", filename: "front.png", mimeType: "image/png" });
    expect(rows[0]!.id).toMatch(/^pf_[A-Za-z0-9]{20}$/);
    expect(proofFilesData([{ filename: "front.png", mimeType: "image/png", content: png }])).toEqual([
      { filename: "front.png", type: "image/png", content: b64(png) },
    ]);
  });
});

describe("decodeProofFiles: refused files", () => {
  it("refuses a lying MIME type", async () => {
    let e = await failure([{ filename: "a.jpg", type: "image/jpeg", content: b64(png) }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", status: 422, field: "proof_files.0.content" });
    expect(e.message).toContain("declared image/jpeg but content is image/png");

    e = await failure([
      { filename: "ok.png", type: "image/png", content: b64(png) },
      { filename: "b.png", type: "image/png", content: b64(pdf) },
    ]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.1.content" });
    expect(e.message).toContain("declared image/png but content is application/pdf");

    e = await failure([{ filename: "a.txt", type: "text/plain", content: b64(pdf) }]);
    expect(e.message).toContain("declared text/plain but content is application/pdf");
  });

  it("refuses binary types whose content is not recognised", async () => {
    const e = await failure([{ filename: "a.png", type: "image/png", content: b64("just text") }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.content" });
  });

  it.each([
    ["@@@", "outside the base64 alphabet"],
    ["QUJD=", "padding"],
    ["QUI", "padding"],
    ["QU=I", "padding"],
    ["QUJD\nRA==", "whitespace"],
    ["QUJD RA==", "whitespace"],
    ["-_-_", "base64url"],
  ])("refuses non-base64 content %j (400 INVALID_FORMAT)", async (content, hint) => {
    const e = await failure([{ filename: "a.txt", type: "text/plain", content }]);
    expect(e).toMatchObject({ code: "INVALID_FORMAT", status: 400, field: "proof_files.0.content" });
    expect(e.message).toContain(hint);
  });

  it("refuses an empty file", async () => {
    for (const content of ["", "data:text/plain;base64,"]) {
      const e = await failure([{ filename: "a.txt", type: "text/plain", content }]);
      expect(e).toMatchObject({ code: "VALIDATION_ERROR", status: 422, field: "proof_files.0.content" });
    }
  });

  it("refuses a file over the per-file limit and files over the total (413)", async () => {
    const big = Buffer.alloc(MAX_PROOF_FILE_BYTES + 1, 0x41);
    let e = await failure([{ filename: "a.txt", type: "text/plain", content: b64(big) }]);
    expect(e).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413, field: "proof_files.0.content" });

    const half = b64(Buffer.alloc(Math.ceil(MAX_PROOF_TOTAL_BYTES / 2) + 3, 0x41));
    e = await failure([
      { filename: "a.txt", type: "text/plain", content: half },
      { filename: "b.txt", type: "text/plain", content: half },
    ]);
    expect(e).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413, field: "proof_files" });
  });

  it("accepts a file of exactly the per-file limit", async () => {
    const [f] = await decodeProofFiles([
      { filename: "a.txt", type: "text/plain", content: b64(Buffer.alloc(MAX_PROOF_FILE_BYTES, 0x41)) },
    ]);
    expect(f!.sizeBytes).toBe(MAX_PROOF_FILE_BYTES);
  });

  it("refuses too many files", async () => {
    const one = { filename: "a.txt", type: "text/plain", content: b64("x") };
    const e = await failure(Array.from({ length: MAX_PROOF_FILES + 1 }, () => one));
    expect(e).toMatchObject({ code: "FIELD_TOO_LONG", status: 422, field: "proof_files" });
    expect(proofFilesInputSchema.safeParse(Array.from({ length: MAX_PROOF_FILES }, () => one)).success).toBe(
      true,
    );
  });

  it("refuses a type outside the allowed list", async () => {
    const exe = Buffer.from("MZ\x90\x00\x03\x00\x00\x00", "latin1");
    const e = await failure([{ filename: "a.exe", type: "application/x-msdownload", content: b64(exe) }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", status: 422, field: "proof_files.0.type" });
    expect(e.message).toContain("application/x-msdownload");
  });

  it("refuses a malformed type", async () => {
    const e = await failure([{ filename: "a.png", type: "png", content: b64(png) }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.type" });
  });

  it.each(["../etc/passwd", "dir/a.png", "a\\b.png", "a\n.png", "..", "photo\u202Egnp.exe", " "])(
    "refuses filename %j",
    async (filename) => {
      const e = await failure([{ filename, type: "image/png", content: b64(png) }]);
      expect(e).toMatchObject({ code: "VALIDATION_ERROR", status: 422, field: "proof_files.0.filename" });
    },
  );

  it("refuses a NUL in a filename as any NUL: 400 INVALID_FORMAT naming the field", async () => {
    const e = await failure([{ filename: "a\u0000.png", type: "image/png", content: b64(png) }]);
    expect(e).toMatchObject({ code: "INVALID_FORMAT", status: 400, field: "proof_files.0.filename" });
  });

  it("refuses an over-long filename with FIELD_TOO_LONG, counting code points", async () => {
    const ok = `${"é".repeat(196)}.png`;
    expect(
      proofFileInputSchema.safeParse({ filename: ok, type: "image/png", content: b64(png) }).success,
    ).toBe(true);
    const e = await failure([{ filename: `${"😀".repeat(197)}.png`, type: "image/png", content: b64(png) }]);
    expect(e).toMatchObject({ code: "FIELD_TOO_LONG", field: "proof_files.0.filename" });
  });

  it("refuses unknown fields (strict object)", async () => {
    const e = await failure([{ filename: "a.png", type: "image/png", content: b64(png), extra: 1 }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.extra" });
  });

  it("refuses JSON that does not parse", async () => {
    const e = await failure([{ filename: "a.json", type: "application/json", content: b64("{not json") }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.content" });
    expect(e.message).toContain("not valid JSON");
  });

  it("refuses invalid UTF-8 and control characters in text", async () => {
    let e = await failure([
      { filename: "a.txt", type: "text/plain", content: b64(Buffer.from([0x68, 0xc3, 0x28])) },
    ]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.content" });
    expect(e.message).toContain("UTF-8");
    e = await failure([{ filename: "a.txt", type: "text/plain", content: b64("a\u0000b") }]);
    expect(e.message).toContain("control characters");
  });

  it("refuses a non-UTF-8 charset and a data URL that contradicts the type", async () => {
    let e = await failure([{ filename: "a.csv", type: "text/csv; charset=latin1", content: b64("a,b") }]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.type" });
    e = await failure([
      { filename: "a.png", type: "image/png", content: `data:image/jpeg;base64,${b64(png)}` },
    ]);
    expect(e).toMatchObject({ code: "VALIDATION_ERROR", field: "proof_files.0.content" });
  });
});
