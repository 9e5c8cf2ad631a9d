-- Keys bill and read an account only when linked to it (api_keys.account_id). Existing keys whose
-- contact e-mail is the e-mail of an account whose owner verified it stay linked to that account;
-- every other key (a typed contact nobody verified) is left unlinked: it pays in USDC until the
-- account's owner links it.
UPDATE "api_keys" AS k
SET "account_id" = a."id"
FROM "client_accounts" AS a
WHERE a."email" = k."contact"
  AND a."email_verified_at" IS NOT NULL
  AND NOT ('admin' = ANY (k."scopes"));
--> statement-breakpoint
-- E-mailed one-time codes are not kept in clear once a message has left: blank them in sent rows.
UPDATE "emails"
SET "text_body" = regexp_replace("text_body", '(vfy|rst)_[A-Za-z0-9]{40}', '\1_[removed after sending]', 'g'),
    "html_body" = regexp_replace("html_body", '(vfy|rst)_[A-Za-z0-9]{40}', '\1_[removed after sending]', 'g')
WHERE "status" = 'sent' AND "text_body" ~ '(vfy|rst)_[A-Za-z0-9]{40}';
--> statement-breakpoint
-- Dedupe keys of code e-mails held the code's last 12 characters: name them by a hash instead.
UPDATE "emails"
SET "dedupe_key" = split_part("dedupe_key", ':', 1) || ':' || substr(md5("dedupe_key"), 1, 16) || ':' || split_part("dedupe_key", ':', 3)
WHERE "template" IN ('account-verify-email', 'account-password-reset')
  AND "dedupe_key" ~ '^(verify-email|reset-password):[A-Za-z0-9]{12}:';
