/** Zod schemas of /api/task-score (spec "Task score"). */
import { z } from "zod";
import { SERVICE_TYPES } from "../db/schema/enums.js";
import { plainText } from "../validation.js";

/** Outcomes a requester may report. */
export const SCORE_OUTCOMES = ["completed", "partially_completed", "not_completed"] as const;

const taskId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ examples: ["TASK-MI9X3K2A-0K5ZQ8W1RT"] });

export const submitScoreBodySchema = z
  .strictObject({
    task_id: taskId,
    // Spec "POST /api/task-score": "422 validation". A number that is not a whole one (4.5) breaks a
    // rule of the value (422 VALIDATION_ERROR), where `.int()` would report a wrong type (400);
    // docs/spec-precedence.md. A string ("5") is still of the wrong type: 400 INVALID_FORMAT.
    rating: z
      .number()
      .min(1)
      .max(5)
      .multipleOf(1, { error: "must be a whole number from 1 to 5" })
      .meta({ type: "integer", description: "1 (poor) to 5 (excellent), a whole number." }),
    outcome: z
      .enum(SCORE_OUTCOMES)
      .optional()
      .meta({ description: "Default: `completed` for a completed task, `not_completed` for a failed one." }),
    feedback: plainText(z.string().trim().max(2000))
      .optional()
      .meta({ description: "Free text, up to 2000 characters (no control characters but tab and newline)." }),
  })
  .meta({ id: "TaskScoreRequest" });
export type SubmitScoreBody = z.output<typeof submitScoreBodySchema>;

export const scoreQuerySchema = z.object({
  task_id: taskId.optional().meta({ description: "One task's score; omitted → aggregate reputation." }),
  service_type: z.enum(SERVICE_TYPES).optional().meta({ description: "Aggregate: only this service." }),
});
export type ScoreQuery = z.output<typeof scoreQuerySchema>;

const dateTime = z.string().meta({ format: "date-time" });

export const scoreSchema = z
  .object({
    task_id: z.string(),
    service_type: z.string(),
    rating: z.number().int(),
    outcome: z.string().nullable(),
    feedback: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "Only for the task's owner (its key, a key of the same account) or an admin." }),
    created_at: dateTime,
  })
  .meta({ id: "TaskScore" });

const stats = {
  count: z.number().int(),
  average_rating: z.number().nullable(),
};
export const reputationSchema = z
  .object({
    ...stats,
    distribution: z.record(z.string(), z.number().int()).meta({ description: "Count per rating 1-5." }),
    by_service: z.array(z.object({ service_type: z.string(), ...stats })),
    by_outcome: z.record(z.string(), z.number().int()),
    service_type: z.string().optional(),
  })
  .meta({ id: "Reputation" });

export const scoreResponseSchema = z.union([scoreSchema, reputationSchema]);
