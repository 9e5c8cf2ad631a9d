/** Zod schemas of GET /api/analytics (admin; spec "Administrative endpoints"). */
import { z } from "zod";
import { isoDate } from "../billing/schemas.js";
import { queryNumber } from "../validation.js";

export const ANALYTICS_ACTIONS = ["agents", "org", "export", "dashboard"] as const;

export const analyticsQuerySchema = z.object({
  action: z
    .string()
    .pipe(z.enum(ANALYTICS_ACTIONS))
    .meta({ description: "agents · org (org_id) · export (org_id, format, dataset) · dashboard." }),
  org_id: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "org and export: the organization (X-Agent-Identity's third part)." }),
  format: z.enum(["csv", "json"]).default("csv").meta({ description: "export: csv (default) or json." }),
  dataset: z
    .enum(["activity", "tasks"])
    .default("activity")
    .meta({ description: "export: `activity` (every request of the org) or `tasks` (its tasks)." }),
  date_from: isoDate.optional().meta({
    description: "From this day (inclusive, America/Toronto). Default: 30 days back (dashboard: 12 weeks).",
  }),
  date_to: isoDate
    .optional()
    .meta({ description: "To this day (inclusive, America/Toronto). Default: today." }),
  limit: queryNumber()
    .pipe(z.number().int().min(1).max(1000))
    .optional()
    .meta({ description: "agents: rows, default 100, max 1000." }),
});
export type AnalyticsQuery = z.output<typeof analyticsQuerySchema>;

export const analyticsResponseSchema = z.record(z.string(), z.unknown()).meta({ id: "AnalyticsResponse" });
