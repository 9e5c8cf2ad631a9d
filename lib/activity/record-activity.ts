/**
 * The activity log (spec "What the service does" 9): one row per request (time, key,
 * identity parts, endpoint, status, latency). Rows are buffered and written in
 * batches after the response, so logging costs the request almost nothing; on
 * Vercel the flush is handed to `waitUntil`. After each flush the volume alert is
 * checked for the keys and organizations seen.
 */
import { waitUntil } from "@vercel/functions";
import { getDb } from "../db/client.js";
import { activityLog } from "../db/schema/index.js";
import { checkVolumeAlerts } from "./volume-alert.js";

export type ActivityEntry = typeof activityLog.$inferInsert;

const BATCH_DELAY_MS = 50;
const MAX_BUFFER = 500;

let buffer: ActivityEntry[] = [];
let pending: Promise<void> | undefined;
let timer: NodeJS.Timeout | undefined;

/** Queues one entry; the write happens within BATCH_DELAY_MS. */
export function recordActivity(entry: ActivityEntry): void {
  buffer.push(entry);
  if (buffer.length >= MAX_BUFFER) {
    void flushActivity();
    return;
  }
  if (!timer) {
    timer = setTimeout(() => {
      timer = undefined;
      void flushActivity();
    }, BATCH_DELAY_MS);
    timer.unref?.();
    try {
      waitUntil(new Promise((resolve) => setTimeout(resolve, BATCH_DELAY_MS + 5)).then(() => pending));
    } catch {
      // not on Vercel
    }
  }
}

/** Writes everything buffered; resolves when written (tests, shutdown). Never throws. */
export async function flushActivity(): Promise<void> {
  if (timer) {
    clearTimeout(timer);
    timer = undefined;
  }
  await pending;
  if (buffer.length === 0) return;
  const batch = buffer;
  buffer = [];
  pending = (async () => {
    try {
      const db = await getDb();
      await db.insert(activityLog).values(batch);
      await checkVolumeAlerts(batch);
    } catch (error) {
      console.error(
        `activity log: ${batch.length} entries not written:`,
        error instanceof Error ? error.message : error,
      );
    }
  })();
  await pending;
}
