-- Idempotency-Key records written before stored responses were encrypted kept, in clear, the
-- secrets a first response shows once: API keys (POST /api/api-keys, "api_key"), anonymous
-- access tokens (POST /api/submit-task, "access_token") and webhook signing secrets
-- (POST /api/webhooks, "secret"). Redact them in place: their replays keep status and ids.
-- New records are encrypted (lib/idempotency/seal.ts), so they start with "v1." and are untouched.
UPDATE "idempotency_keys"
SET "response_body" = regexp_replace(
  "response_body",
  '"(api_key|access_token|secret)"\s*:\s*"[^"]*"',
  '"\1":"[redacted: secrets are not kept in clear]"',
  'g'
)
WHERE "response_body" LIKE '{%';
--> statement-breakpoint
-- Claims of the earlier design (an "in_progress" row per running request) mean nothing now: a
-- running request holds a transaction-scoped advisory lock instead.
DELETE FROM "idempotency_keys" WHERE "state" = 'in_progress';
