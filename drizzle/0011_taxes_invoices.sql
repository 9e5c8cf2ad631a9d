CREATE TABLE "invoice_sequences" (
	"year" integer PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "number" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "subtotal_cad" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "gst_cad" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "qst_cad" numeric(12, 2);--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_uq" ON "invoices" USING btree ("number");