/**
 * Retention of activity logs and proof files (docs/privacy.md "Retention"): rows older than
 * ACTIVITY_LOG_RETENTION_DAYS / PROOF_FILE_RETENTION_DAYS (0 = kept) are deleted by the
 * privacy-retention job, with one `privacy_audit` row giving the counts. Dead letters expire on
 * their own (DEAD_LETTER_RETENTION_HOURS, deliver-webhooks job).
 */
import { lt } from "drizzle-orm";
import { getConfig } from "../config.js";
import { getDb } from "../db/client.js";
import { activityLog, privacyAudit, proofFiles } from "../db/schema/index.js";

const DAY_MS = 86_400_000;

/**
 * Deletes what is past its retention at `now`, in one transaction.
 * @returns `{ activity_rows_deleted, proof_files_deleted }`
 */
export async function purgeExpiredPersonalData(
  now = new Date(),
): Promise<{ activity_rows_deleted: number; proof_files_deleted: number }> {
  const config = getConfig();
  const db = await getDb();
  return db.transaction(async (tx) => {
    let activity = 0;
    let proofs = 0;
    if (config.ACTIVITY_LOG_RETENTION_DAYS > 0) {
      const cutoff = new Date(now.getTime() - config.ACTIVITY_LOG_RETENTION_DAYS * DAY_MS);
      activity = (
        await tx.delete(activityLog).where(lt(activityLog.at, cutoff)).returning({ id: activityLog.id })
      ).length;
    }
    if (config.PROOF_FILE_RETENTION_DAYS > 0) {
      const cutoff = new Date(now.getTime() - config.PROOF_FILE_RETENTION_DAYS * DAY_MS);
      proofs = (
        await tx.delete(proofFiles).where(lt(proofFiles.createdAt, cutoff)).returning({ id: proofFiles.id })
      ).length;
    }
    const counts = { activity_rows_deleted: activity, proof_files_deleted: proofs };
    if (activity + proofs > 0) {
      await tx
        .insert(privacyAudit)
        .values({ action: "retention_purge", actor: "job", details: counts, at: now });
    }
    return counts;
  });
}
