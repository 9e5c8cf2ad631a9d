/**
 * The bounds of a `captured_at` sent by the offline field app (issue 44 item 5;
 * docs/staff-and-audit.md "Offline"): a check-in (POST /api/field-visit) or a photo (POST
 * /api/field-proof) made without a network is sent later with the time it was made. That time is
 * the device's clock, so it is accepted only when it is plausible:
 *
 * - not before the task was assigned (`tasks.assigned_at`): nobody was sent there yet;
 * - not in the future, beyond {@link CAPTURE_CLOCK_SKEW_MS} (a phone's clock a little ahead);
 * - not older than `OFFLINE_CAPTURE_MAX_AGE_H` hours (default 12) when it reaches the server.
 *
 * Anything else is 422 VALIDATION_ERROR on `captured_at`, with the bound it broke.
 */
import type { Config } from "../config.js";
import type { Task } from "../db/schema/index.js";
import { DomainError } from "../errors.js";

/** How far ahead of the server's clock a device's `captured_at` may be, ms (2 minutes). */
export const CAPTURE_CLOCK_SKEW_MS = 120_000;

/**
 * Checks `capturedAt` (RFC 3339, already parsed by the body schema) against `task` at `now`.
 * @param capturedAt the device's capture time, or undefined (made online: the server's time applies)
 * @returns the capture time as a Date, or `now` when none was sent
 * @throws DomainError VALIDATION_ERROR on `captured_at` (extra: `bound` = `assigned_at` | `future` | `max_age`, `bound_at` ISO time)
 */
export function boundedCapturedAt(
  capturedAt: string | undefined,
  task: Pick<Task, "id" | "assignedAt">,
  now: Date,
  config: Pick<Config, "OFFLINE_CAPTURE_MAX_AGE_H">,
): Date {
  if (capturedAt === undefined) return now;
  const at = new Date(capturedAt);
  const refuse = (bound: string, limit: Date, why: string): never => {
    throw new DomainError("VALIDATION_ERROR", `captured_at ${capturedAt} ${why} (${limit.toISOString()})`, {
      field: "captured_at",
      extra: { bound, bound_at: limit.toISOString() },
    });
  };
  const latest = new Date(now.getTime() + CAPTURE_CLOCK_SKEW_MS);
  if (at > latest) refuse("future", latest, "is in the future: it must not be later than the server's time");
  const oldest = new Date(now.getTime() - config.OFFLINE_CAPTURE_MAX_AGE_H * 3_600_000);
  if (at < oldest) {
    refuse(
      "max_age",
      oldest,
      `is older than ${config.OFFLINE_CAPTURE_MAX_AGE_H} h (OFFLINE_CAPTURE_MAX_AGE_H)`,
    );
  }
  if (task.assignedAt && at < task.assignedAt) {
    refuse("assigned_at", task.assignedAt, `is before task ${task.id} was assigned to you`);
  }
  return at;
}
