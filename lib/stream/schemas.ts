/** Query schema of GET /api/tasks/stream. */
import { z } from "zod";

export const streamQuerySchema = z.object({
  task_id: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .meta({ description: "The task to follow.", examples: ["TASK-MI9X3K2A-0K5ZQ8W1RT"] }),
  access_token: z
    .string()
    .max(100)
    .optional()
    .meta({ description: "Anonymous submissions: the access_token returned at submission." }),
  last_event_id: z
    .string()
    .max(20)
    .optional()
    .meta({ description: "Same as the Last-Event-ID header, for clients that cannot set headers." }),
});
export type StreamQuery = z.output<typeof streamQuerySchema>;
