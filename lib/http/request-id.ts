import { randomBytes } from "node:crypto";

/** A new request id, `req_` + 20 lowercase hex characters. */
export function newRequestId(): string {
  return `req_${randomBytes(10).toString("hex")}`;
}
