-- Custom SQL migration file, put your code below! --
-- One payment_amounts row per non-sandbox task already given a USDC amount: held (released_at
-- null) while the task awaits payment, else released when it was paid, cancelled or last
-- changed (expired). assigned_at is the review time. So amounts of tasks approved before this
-- table existed keep their lower time bound and their reuse cooldown.
INSERT INTO "payment_amounts" ("task_id", "amount_micro", "assigned_at", "released_at")
SELECT
  "id",
  "payment_usdc_micro",
  coalesce("reviewed_at", "updated_at"),
  CASE
    WHEN "status" IN ('accepted_pending_payment', 'counter_offered') THEN NULL
    ELSE coalesce("paid_at", "cancelled_at", "updated_at")
  END
FROM "tasks"
WHERE "payment_usdc_micro" IS NOT NULL AND NOT "sandbox"
ON CONFLICT DO NOTHING;
