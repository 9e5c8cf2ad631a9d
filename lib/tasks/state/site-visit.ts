/**
 * A task's site visit as the evidence shows it (issue 26 item 6; docs/staff-and-audit.md
 * "Evidence"): read from `site_visits` (one row per task, written by POST /api/field-visit) and
 * shaped the one way the status, the `task.completed` webhook and callback, and the signed receipt
 * carry it (`SiteVisitView`, schema `siteVisitSchema` of view-schemas.ts).
 */
import { eq } from "drizzle-orm";
import { getDb, type Tx } from "../../db/client.js";
import { type SiteVisit, siteVisits } from "../../db/schema/index.js";
import type { ReceiptSiteVisit } from "../../receipts/receipt.js";

/**
 * The site visit of the evidence: times ISO 8601, distances and accuracy in metres (1 decimal). The
 * signed receipt names the same view, so its type is defined once, with the receipt (base layer).
 */
export type SiteVisitView = ReceiptSiteVisit;

/** Metres rounded to 0.1 m (what a phone's position is worth). */
export const roundMetres = (m: number): number => Math.round(m * 10) / 10;

/**
 * The evidence view of `visit`, or null when there is none. `checked_in_at` is when the check-in
 * was made (an offline one's `captured_at`), `check_in_received_at` when the server got it (issue
 * 44 item 5; for visits recorded before, the same time).
 */
export function siteVisitView(visit: SiteVisit | null | undefined): SiteVisitView | null {
  if (!visit) return null;
  return {
    checked_in_at: visit.checkedInAt.toISOString(),
    check_in_received_at: (visit.checkInReceivedAt ?? visit.checkedInAt).toISOString(),
    check_in_offline: visit.checkInOffline,
    checked_out_at: visit.checkedOutAt?.toISOString() ?? null,
    check_in_distance_m: visit.checkInDistanceM === null ? null : roundMetres(visit.checkInDistanceM),
    accuracy_m: roundMetres(visit.checkInAccuracyM),
    within_geofence: visit.withinGeofence,
    ...(visit.reason ? { reason: visit.reason } : {}),
  };
}

/** The site visit row of task `taskId` (in `tx` when given), or null. */
export async function readSiteVisit(taskId: string, tx?: Tx): Promise<SiteVisit | null> {
  const db = tx ?? (await getDb());
  const [row] = await db.select().from(siteVisits).where(eq(siteVisits.taskId, taskId));
  return row ?? null;
}
