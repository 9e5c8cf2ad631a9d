import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, storedFileColumns, timestamptz } from "./columns.js";
import { tasks } from "./tasks.js";

/**
 * Proof files (photos, reports) of a completed task, stored in the database: they are
 * small (a request body is capped at 4.5 MB) and served base64-encoded in `proof_files_data`.
 */
export const proofFiles = pgTable(
  "proof_files",
  {
    /** `pf_<id>`. */
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /**
     * The file (`storedFileColumns`): `mime_type` is the `type` of a proof file item, `position`
     * the order of `proof_files_data` and of the receipt.
     */
    ...storedFileColumns(),
    /**
     * Capture metadata read from the file (lib/receipts/capture.ts): capture time, GPS position,
     * distance from the task's place, whether the time falls in dispatch..completion; null for
     * files that carry none (text, PDF) or were stored before it was read.
     */
    capture: jsonb("capture").$type<Record<string, unknown>>(),
    /**
     * When the photo was taken as the field app says (`captured_at` of POST /api/field-proof, a photo
     * queued offline; issue 44 item 5), bounded like a check-in's; null when not sent. `created_at`
     * is when the server received it.
     */
    deviceCapturedAt: timestamptz("device_captured_at"),
    createdAt: createdAt(),
  },
  (t) => [index("proof_files_task_id_idx").on(t.taskId)],
);

export type ProofFile = typeof proofFiles.$inferSelect;
export type NewProofFile = typeof proofFiles.$inferInsert;
