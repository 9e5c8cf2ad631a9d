/** The project's local host for a test file: api/ and public/ of this repo, port 0, no crons. */
import path from "node:path";
import { type LocalHost, startLocalHost } from "../../scripts/local-host.js";

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Starts the local host on 127.0.0.1 with a free port; close it with `close()`. */
export function startTestHost(): Promise<LocalHost> {
  return startLocalHost({ root: ROOT, port: 0, host: "127.0.0.1", crons: false, log: () => {} });
}
