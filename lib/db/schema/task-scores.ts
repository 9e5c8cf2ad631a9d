import { sql } from "drizzle-orm";
import { check, index, pgTable, smallint, text } from "drizzle-orm/pg-core";
import { apiKeys } from "./accounts-and-keys.js";
import { createdAt } from "./columns.js";
import { tasks } from "./tasks.js";

/** Requester ratings; a task is scored once (the primary key), so a second score is a 409. */
export const taskScores = pgTable(
  "task_scores",
  {
    taskId: text("task_id")
      .primaryKey()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /** Key that submitted the score. */
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    /** 1 to 5. */
    rating: smallint("rating").notNull(),
    /** e.g. `completed`. */
    outcome: text("outcome"),
    feedback: text("feedback"),
    createdAt: createdAt(),
  },
  (t) => [
    check("task_scores_rating_range", sql`rating between 1 and 5`),
    index("task_scores_created_at_idx").on(t.createdAt),
  ],
);

export type TaskScore = typeof taskScores.$inferSelect;
export type NewTaskScore = typeof taskScores.$inferInsert;
