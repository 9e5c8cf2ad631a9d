/**
 * The generated proof file of a completed sandbox task: a small, real PNG (64×64 RGB, an
 * 8×8 checkerboard of two colours derived from the task id), deterministic for a task id.
 * Built from the PNG specification (signature, IHDR, tEXt, IDAT, IEND chunks, CRC-32).
 */
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";

const SIZE = 64;
const SQUARE = 8;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** CRC-32 table of the PNG specification (polynomial 0xEDB88320). */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of `bytes` as the PNG specification computes it. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One chunk: length, type, data, CRC of type + data. */
function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A generated proof image. */
export interface SampleProof {
  filename: string;
  mimeType: "image/png";
  bytes: Buffer;
}

/** The deterministic sample proof PNG of sandbox task `taskId`. */
export function sampleProofPng(taskId: string): SampleProof {
  const hash = createHash("sha256").update(taskId, "utf8").digest();
  const light = [hash[0]! | 0x80, hash[1]! | 0x80, hash[2]! | 0x80];
  const dark = [hash[3]! & 0x7f, hash[4]! & 0x7f, hash[5]! & 0x7f];

  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(SIZE, 0);
  ihdr.writeUInt32BE(SIZE, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour (RGB)
  // compression 0, filter 0, interlace 0: already zero

  const stride = 1 + SIZE * 3;
  const raw = Buffer.alloc(SIZE * stride); // filter byte 0 (None) on every row
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const colour = (Math.floor(x / SQUARE) + Math.floor(y / SQUARE)) % 2 === 0 ? light : dark;
      raw.set(colour, y * stride + 1 + x * 3);
    }
  }

  // tEXt is Latin-1 without NUL: keep the id printable ASCII.
  const safeId = taskId.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
  const text = Buffer.from(`Comment\0Sandbox proof of task ${safeId}`, "latin1");

  const bytes = Buffer.concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("tEXt", text),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  const nameId = taskId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 150) || "task";
  return { filename: `sandbox-proof-${nameId}.png`, mimeType: "image/png", bytes };
}
