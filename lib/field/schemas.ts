/**
 * Zod schemas of the field endpoints (issue 26 items 4-5; docs/staff-and-audit.md "Assignment",
 * "Field app"): POST /api/task-assign, GET and POST /api/field-visit, POST /api/field-proof.
 */
import { z } from "zod";
import { TASK_STATUSES } from "../db/schema/enums.js";
import { taskIdSchema } from "../tasks/state/admin-schemas.js";
import { proofFileInputSchema } from "../tasks/state/proof-files.js";
import { siteVisitSchema, visitRuleSchema } from "../tasks/state/view-schemas.js";
import { plainText } from "../validation.js";

const dateTime = z.string().meta({ format: "date-time" });

/**
 * `captured_at` of a check-in or photo made offline (issue 44 item 5): RFC 3339 with an offset,
 * bounded by lib/field/captured-at.ts (after the assignment, not in the future, at most
 * OFFLINE_CAPTURE_MAX_AGE_H old).
 */
const capturedAtSchema = z.iso
  .datetime({ offset: true })
  .optional()
  .meta({
    description:
      "When the field app took the position or photo while offline (RFC 3339), sent later: not before the task's assignment, " +
      "not in the future (2 min clock skew allowed), at most OFFLINE_CAPTURE_MAX_AGE_H (12 h) old, else 422 on captured_at. " +
      "Omit it online (the server's time applies).",
  });

/** Most proof files attached to one task from the field before its completion. */
export const MAX_FIELD_PROOF_FILES = 30;

/** Longest reason of a check-in outside the geofence, characters. */
export const VISIT_REASON_MAX = 500;

export const assignTaskBodySchema = z
  .strictObject({
    task_id: taskIdSchema,
    staff_id: z.string().trim().min(1).max(64).nullable().meta({
      description:
        "The staff member to assign (an active `field` or `owner` account, `stf_…`); null unassigns the task.",
    }),
  })
  .meta({ id: "TaskAssignRequest" });
export type AssignTaskBody = z.output<typeof assignTaskBodySchema>;

export const fieldVisitBodySchema = z
  .strictObject({
    task_id: taskIdSchema,
    action: z.enum(["check_in", "check_out"]),
    latitude: z.number().min(-90).max(90).meta({ description: "Degrees, WGS 84 (the device's position)." }),
    longitude: z.number().min(-180).max(180).meta({ description: "Degrees, WGS 84." }),
    accuracy_m: z
      .number()
      .min(0)
      .max(100_000)
      .meta({ description: "The accuracy the device reports (metres, 68 % radius)." }),
    reason: plainText(z.string().trim().min(1).max(VISIT_REASON_MAX)).optional().meta({
      description:
        "check_in outside the geofence: why (the check-in is then accepted and flagged, within_geofence false).",
    }),
    captured_at: capturedAtSchema,
  })
  .meta({ id: "FieldVisitRequest" });
export type FieldVisitBody = z.output<typeof fieldVisitBodySchema>;

export const fieldProofBodySchema = z
  .strictObject({ task_id: taskIdSchema, file: proofFileInputSchema, captured_at: capturedAtSchema })
  .meta({ id: "FieldProofRequest" });
export type FieldProofBody = z.output<typeof fieldProofBodySchema>;

/** The image types GET /api/field-proof serves (a proof photo's thumbnail). */
export const FIELD_PROOF_IMAGE_TYPES = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/heic",
  "image/heif",
] as const;

export const fieldProofQuerySchema = z.strictObject({
  task_id: taskIdSchema,
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({
      description: "The file's SHA-256, lowercase hex (as the field list and the upload answer give it).",
    }),
});
export type FieldProofQuery = z.output<typeof fieldProofQuerySchema>;

/** A proof file attached to a task (no content). */
export const attachedProofSchema = z.object({
  filename: z.string(),
  type: z.string(),
  size: z.number().int().meta({ description: "Bytes." }),
  sha256: z.string(),
  capture: z.record(z.string(), z.unknown()).nullable(),
  captured_at: dateTime.nullable().meta({
    description:
      "The `captured_at` the field app sent with a photo taken offline (issue 44 item 5), else null.",
  }),
  received_at: dateTime.meta({ description: "When the server received and attached the file." }),
});

/** One task of the field person's list (GET /api/field-visit) and the answer of a visit or upload. */
export const fieldTaskSchema = z
  .object({
    task_id: z.string(),
    service_type: z.string(),
    service_name: z.string(),
    status: z.enum(TASK_STATUSES),
    urgency: z.enum(["standard", "urgent"]),
    location_address: z.string(),
    task_description: z.string(),
    special_instructions: z.string().nullable(),
    execution_deadline: dateTime,
    at_risk: z.boolean().meta({ description: "The deadline watch flagged the task (task.at_risk)." }),
    at_risk_at: dateTime.nullable(),
    coordinates: z
      .array(z.number())
      .min(2)
      .max(2)
      .nullable()
      .meta({ description: "[longitude, latitude] of the task's resolved place (GeoJSON order), or null." }),
    map_url: z.string().nullable().meta({ description: "OpenStreetMap at the place (zoom 17)." }),
    geo_uri: z
      .string()
      .nullable()
      .meta({ description: "RFC 5870 `geo:lat,lon` (opens the phone's map app)." }),
    geofence_m: z.number().meta({ description: "GEOFENCE_RADIUS_M: the check-in radius, metres." }),
    site_visit: siteVisitSchema.nullable(),
    visit_rule: visitRuleSchema.meta({
      description:
        "The service's site-visit rule and the visit so far: with rule `required` and outcome `no_visit`, completion is refused (check in first).",
    }),
    proof_files: z
      .array(attachedProofSchema)
      .meta({ description: "Files uploaded so far, in upload order." }),
  })
  .meta({ id: "FieldTask" });
export type FieldTask = z.output<typeof fieldTaskSchema>;

export const fieldTaskListSchema = z
  .object({ tasks: z.array(fieldTaskSchema), geofence_m: z.number(), accuracy_cap_m: z.number() })
  .meta({ id: "FieldTaskList" });

export const fieldProofResponseSchema = z
  .object({ task_id: z.string(), file: attachedProofSchema, files_count: z.number().int() })
  .meta({ id: "FieldProofUploaded" });

/** GET /api/task-assign: the people a task can be assigned to (active field staff and owners). */
export const assignableStaffSchema = z
  .object({
    staff: z.array(
      z.object({
        staff_id: z.string(),
        display_name: z.string(),
        role: z.enum(["field", "owner"]),
      }),
    ),
  })
  .meta({ id: "AssignableStaff" });
