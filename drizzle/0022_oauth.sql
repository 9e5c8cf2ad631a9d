CREATE TABLE "oauth_artifacts" (
	"kind" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_artifacts_pk" PRIMARY KEY("kind","id")
);
--> statement-breakpoint
CREATE TABLE "oauth_grant_keys" (
	"grant_id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"account_id" text NOT NULL,
	"client_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_grant_keys" ADD CONSTRAINT "oauth_grant_keys_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_grant_keys" ADD CONSTRAINT "oauth_grant_keys_account_id_client_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."client_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_artifacts_grant_id_idx" ON "oauth_artifacts" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oauth_artifacts_uid_idx" ON "oauth_artifacts" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "oauth_artifacts_expires_at_idx" ON "oauth_artifacts" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_grant_keys_key_id_idx" ON "oauth_grant_keys" USING btree ("key_id");