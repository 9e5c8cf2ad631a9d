/**
 * The mail worker: sends queued `emails` rows.
 *
 * - With `RESEND_API_KEY`: through the Resend SDK (`RESEND_BASE_URL` overrides its API
 *   origin), from `EMAIL_FROM`, with the row id as Resend's `Idempotency-Key` so a retry
 *   after a crash never sends twice; proof files are attached (read from `proof_files`).
 * - Without it: the embedded outbox. The row (subject, text, attachment list) is the
 *   message; it is marked sent with provider `outbox` and one line is logged, so a
 *   developer reads mail in the `emails` table or the log. In a development run (loopback or
 *   embedded database, not Vercel, NODE_ENV not production: `productionProfile` inactive) the log
 *   line of a message carrying a one-time code also holds its text (the row loses the code,
 *   below); in the production profile (which requires RESEND_API_KEY unless MAIL_DISABLED=true)
 *   never.
 * - Once a message is sent, the one-time codes in it (`vfy_…`, `rst_…`) are blanked in the row
 *   (`redactOneTimeCodes`): the database keeps only their SHA-256 (`auth_tokens`).
 *
 * Rows are claimed with a lease (`locked_until`, 60 s) so concurrent workers never send
 * one twice; a failed send is retried after 1, 5, 30 and 120 minutes, then marked `failed`.
 * Provider answers 4xx other than 408/409/429 are permanent (`failed` at once).
 * When a `webhook-fallback` message is sent, its delivery's `fallback_email_sent` is set.
 */
import { and, asc, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { Resend } from "resend";
import { type Config, getConfig, productionProfile } from "../config.js";
import { type Db, getDb } from "../db/client.js";
import { deliveries, type Email, emails, proofFiles } from "../db/schema/index.js";

/** Delays before retrying a failed send, seconds; after the last one the message is `failed`. */
export const EMAIL_RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200];

/** Lease of one claimed message, seconds. */
const LEASE_SECONDS = 60;

/** A one-time code of lib/auth/one-time-tokens.ts (e-mail verification, password reset). */
const ONE_TIME_CODE = /\b(vfy|rst|inv)_[A-Za-z0-9]{40}\b/g;

/** `text` with every one-time code replaced by `vfy_[removed after sending]` (or `rst_…`). */
export function redactOneTimeCodes(text: string): string {
  return text.replace(ONE_TIME_CODE, "$1_[removed after sending]");
}

/** Told of each message the embedded outbox sends, with its text before the codes are blanked. */
export type OutboxListener = (email: Email) => void;

const outboxListeners = new Set<OutboxListener>();

/**
 * Registers `listener` for the messages the embedded outbox (no RESEND_API_KEY) sends: it gets
 * the row as claimed, one-time codes included, before the row is redacted. The local mail viewer
 * of `npm run dev` keeps them in memory (scripts/local-control.ts). Never called in production
 * (the outbox there is Resend). Returns the function that unregisters it.
 */
export function onOutboxMessage(listener: OutboxListener): () => void {
  outboxListeners.add(listener);
  return () => outboxListeners.delete(listener);
}

/** Outcome of one send. */
type SendResult =
  | { ok: true; provider: string; messageId: string | null }
  | { ok: false; permanent: boolean; error: string };

let resendClient: { key: string; base: string | undefined; client: Resend } | undefined;

/** The Resend client of `config`'s key and origin; the SDK (with its MIME parser) is imported by the first send. */
async function resendFor(config: Config): Promise<Resend> {
  const key = config.RESEND_API_KEY!;
  if (!resendClient || resendClient.key !== key || resendClient.base !== config.RESEND_BASE_URL) {
    const { Resend } = await import("resend");
    resendClient = {
      key,
      base: config.RESEND_BASE_URL,
      client: new Resend(
        key,
        config.RESEND_BASE_URL ? { baseUrl: config.RESEND_BASE_URL.replace(/\/+$/, "") } : {},
      ),
    };
  }
  return resendClient.client;
}

async function attachmentsOf(
  email: Email,
): Promise<{ filename: string; content: Buffer; contentType: string }[]> {
  const refs = email.attachments ?? [];
  if (refs.length === 0) return [];
  const ids = refs.map((r) => r.proof_file_id);
  const db = await getDb();
  const rows = await db
    .select({ id: proofFiles.id, content: proofFiles.content })
    .from(proofFiles)
    .where(inArray(proofFiles.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r.content]));
  return refs.flatMap((r) => {
    const content = byId.get(r.proof_file_id);
    return content
      ? [{ filename: r.filename, content: Buffer.from(content), contentType: r.content_type }]
      : [];
  });
}

async function sendOne(email: Email, config: Config): Promise<SendResult> {
  if (!config.RESEND_API_KEY) {
    const files = (email.attachments ?? []).map((a) => a.filename).join(", ");
    // The row loses its one-time code once sent: in a development run the log is the mailbox.
    const development = !productionProfile(config).active;
    const codeText =
      development && redactOneTimeCodes(email.textBody) !== email.textBody ? `\n${email.textBody}` : "";
    console.log(
      `[mail] outbox ${email.id} to=${email.toAddress} subject=${JSON.stringify(email.subject)}` +
        (files ? ` attachments=${files}` : "") +
        codeText,
    );
    if (development) {
      for (const listener of outboxListeners) {
        try {
          listener(email);
        } catch {
          // a viewer's failure never fails the send
        }
      }
    }
    return { ok: true, provider: "outbox", messageId: null };
  }
  try {
    const { data, error } = await (await resendFor(config)).emails.send(
      {
        from: config.EMAIL_FROM,
        to: [email.toAddress],
        subject: email.subject,
        text: email.textBody,
        ...(email.htmlBody ? { html: email.htmlBody } : {}),
        replyTo: config.EMAIL_REPLY_TO ?? config.CONTACT_EMAIL,
        attachments: (await attachmentsOf(email)).map((a) => ({
          filename: a.filename,
          content: a.content.toString("base64"),
          contentType: a.contentType,
        })),
        tags: email.template
          ? [{ name: "template", value: email.template.replace(/[^A-Za-z0-9_-]/g, "_") }]
          : [],
      },
      { idempotencyKey: email.id },
    );
    if (error) {
      const status = (error as { statusCode?: number | null }).statusCode ?? null;
      const permanent = status !== null && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
      return { ok: false, permanent, error: `resend ${status ?? "network"}: ${error.message}` };
    }
    return { ok: true, provider: "resend", messageId: data?.id ?? null };
  } catch (error) {
    return { ok: false, permanent: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Claims up to `limit` queued messages due at `now` (lease until `lease`), oldest due first,
 * skipping rows another sender holds. `now` counts to the end of its millisecond: a message
 * queued with the column default (the database's `now()`, microseconds) earlier in that same
 * millisecond is due, not left for the next pass.
 */
async function claimDueEmails(db: Db, now: Date, lease: Date, limit: number): Promise<Email[]> {
  const dueBefore = new Date(now.getTime() + 1);
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: emails.id })
      .from(emails)
      .where(
        and(
          eq(emails.status, "queued"),
          lt(emails.nextAttemptAt, dueBefore),
          or(isNull(emails.lockedUntil), lt(emails.lockedUntil, now)),
        ),
      )
      .orderBy(asc(emails.nextAttemptAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    const ids = due.map((d) => d.id);
    return tx.update(emails).set({ lockedUntil: lease }).where(inArray(emails.id, ids)).returning();
  });
}

/**
 * Records `email` sent (attempt number `attempts`), its one-time codes redacted; a webhook
 * fallback message also marks its delivery's fallback sent, in the same transaction.
 */
async function recordSent(
  db: Db,
  email: Email,
  attempts: number,
  result: Extract<SendResult, { ok: true }>,
): Promise<void> {
  const markSent = (tx: Db) =>
    tx
      .update(emails)
      .set({
        status: "sent",
        attempts,
        provider: result.provider,
        providerMessageId: result.messageId,
        sentAt: new Date(),
        lockedUntil: null,
        error: null,
        textBody: redactOneTimeCodes(email.textBody),
        htmlBody: email.htmlBody === null ? null : redactOneTimeCodes(email.htmlBody),
      })
      .where(eq(emails.id, email.id));
  const deliveryId = email.dedupeKey?.startsWith("webhook-fallback:")
    ? email.dedupeKey.slice("webhook-fallback:".length)
    : undefined;
  if (deliveryId) {
    await db.transaction(async (tx) => {
      await markSent(tx);
      await tx.update(deliveries).set({ fallbackEmailSent: true }).where(eq(deliveries.id, deliveryId));
    });
  } else {
    // One statement needs no transaction (one round trip instead of three).
    await markSent(db);
  }
}

/**
 * Records a failed attempt of `email`: queued again after the next delay of
 * EMAIL_RETRY_DELAYS_SECONDS, or `failed` (codes redacted) when the failure is permanent or
 * the delays are used up.
 */
async function recordFailure(
  db: Db,
  email: Email,
  attempts: number,
  result: Extract<SendResult, { ok: false }>,
): Promise<void> {
  const delay = EMAIL_RETRY_DELAYS_SECONDS[attempts - 1];
  const giveUp = result.permanent || delay === undefined;
  console.error(`[mail] ${email.id} to=${email.toAddress} failed (attempt ${attempts}): ${result.error}`);
  await db
    .update(emails)
    .set({
      status: giveUp ? "failed" : "queued",
      // A message given up keeps no code either.
      ...(giveUp
        ? {
            textBody: redactOneTimeCodes(email.textBody),
            htmlBody: email.htmlBody === null ? null : redactOneTimeCodes(email.htmlBody),
          }
        : {}),
      attempts,
      error: result.error.slice(0, 1000),
      lockedUntil: null,
      nextAttemptAt: new Date(Date.now() + (delay ?? 0) * 1000),
    })
    .where(eq(emails.id, email.id));
}

/**
 * Sends due queued messages, at most `limit` (default 50), 4 at a time.
 * @returns counts of sent and failed (retried later or given up) messages.
 */
export async function sendQueuedEmails(options: { limit?: number; now?: Date } = {}): Promise<{
  sent: number;
  failed: number;
}> {
  const config = getConfig();
  const db = await getDb();
  const now = options.now ?? new Date();
  const lease = new Date(now.getTime() + LEASE_SECONDS * 1000);
  const claimed = await claimDueEmails(db, now, lease, options.limit ?? 50);
  let sent = 0;
  let failed = 0;
  const queue = [...claimed];
  const worker = async () => {
    for (let email = queue.shift(); email; email = queue.shift()) {
      const result = await sendOne(email, config);
      const attempts = email.attempts + 1;
      if (result.ok) {
        sent++;
        await recordSent(db, email, attempts, result);
      } else {
        failed++;
        await recordFailure(db, email, attempts, result);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, claimed.length) }, worker));
  return { sent, failed };
}
