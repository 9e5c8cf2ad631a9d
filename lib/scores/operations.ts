/** Operation descriptors of /api/task-score (spec "Tasks"). */
import { defineOperation } from "../descriptors/operation.js";
import { scoreQuerySchema, scoreResponseSchema, scoreSchema, submitScoreBodySchema } from "./schemas.js";

export const submitScoreOperation = defineOperation({
  id: "submitTaskScore",
  method: "POST",
  path: "/api/task-score",
  summary: "Rate a finished task (once; the submitting key only)",
  description:
    "The key that submitted the task (scope task_create) rates it 1-5 once it is `completed` or `failed`. " +
    "404 unknown task; 403 another key's task; 409 already scored or not finished; 422 validation.",
  tags: ["Tasks"],
  auth: "key",
  scope: "task_create",
  body: submitScoreBodySchema,
  response: scoreSchema,
  successStatus: 201,
  idempotent: true,
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "FIELD_TOO_LONG", "NOT_FOUND", "FORBIDDEN", "CONFLICT"],
});

export const getScoreOperation = defineOperation({
  id: "getTaskScore",
  method: "GET",
  path: "/api/task-score",
  summary: "One task's score, or the service's aggregate reputation",
  description:
    "With `task_id`: that task's score (404 when none; `feedback` only for the task's owner or an admin). Without: " +
    "count, average_rating, distribution (1-5), by_service and by_outcome over real (non-sandbox) tasks; " +
    "`service_type` narrows it.",
  tags: ["Tasks"],
  auth: "optional",
  query: scoreQuerySchema,
  response: scoreResponseSchema,
  errors: ["NOT_FOUND", "VALIDATION_ERROR"],
});
