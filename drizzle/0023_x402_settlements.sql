CREATE TABLE "x402_settlements" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"network" text NOT NULL,
	"chain_id" integer NOT NULL,
	"x402_version" integer NOT NULL,
	"payer" text NOT NULL,
	"nonce" text NOT NULL,
	"amount_micro" bigint NOT NULL,
	"signature" text NOT NULL,
	"status" text NOT NULL,
	"tx_hash" text,
	"error_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "x402_settlements_chain_payer_nonce_uq" UNIQUE("chain_id","payer","nonce")
);
--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD CONSTRAINT "x402_settlements_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_settlements_live_task_uq" ON "x402_settlements" USING btree ("task_id") WHERE "x402_settlements"."status" in ('pending', 'broadcast', 'settled');--> statement-breakpoint
CREATE INDEX "x402_settlements_task_id_idx" ON "x402_settlements" USING btree ("task_id");