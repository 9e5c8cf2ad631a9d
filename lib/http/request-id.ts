import { randomBytes } from "node:crypto";

/** Random bytes drawn at once and handed out 10 at a time (one CSPRNG call per ~400 ids). */
const POOL_BYTES = 4000;
let pool = Buffer.alloc(0);
let offset = 0;

/** A new request id, `req_` + 20 lowercase hex characters (80 random bits). */
export function newRequestId(): string {
  if (offset + 10 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + 10);
  offset += 10;
  return `req_${hex}`;
}
