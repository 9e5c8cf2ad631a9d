/**
 * The rule for task e-mails to unverified addresses (issue 13 item 6). A task's
 * `requester_contact` is whatever the submitter typed, so without it an anonymous caller could
 * make the service e-mail any stranger text of the caller's choosing (a task description that
 * reads "your bank account is locked…"). Therefore, for a task e-mail whose recipient is not
 * verified (`verifiedAddresses`):
 *
 * - the message is replaced by the `task-notice` template in the task's language: task id,
 *   status (in words, with its code) and the status link, nothing the requester wrote, no attachments;
 * - at most UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY such notices go to one address per rolling
 *   24 hours; beyond that the row is written with status `suppressed` (never sent) and says why
 *   in `error`.
 *
 * Rows without a task (billing and account e-mails) are returned unchanged.
 */
import { and, count, eq, gt, ne, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import type { Tx } from "../db/client.js";
import type { Lang } from "../db/schema/enums.js";
import { emails, type NewEmail } from "../db/schema/index.js";
import { taskLinks } from "../tasks/state/task-links.js";
import { taskStatusLabel } from "./labels.js";
import { renderTemplate } from "./templates.js";
import { verifiedAddresses } from "./verified-address.js";

/** What the notice says about a task: its current status. */
export interface TaskNoticeFacts {
  status: string;
}

/**
 * Applies the rule above to `rows` (to be inserted by the caller in the same transaction).
 * Takes a transaction-scoped advisory lock per unverified address, so concurrent dispatches
 * cannot both stay under the daily limit.
 * @param tx the transaction that will insert the rows
 * @param rows e-mail rows about to be queued
 * @param taskFacts the current status of each task the rows refer to, by task id
 * @returns the rows to insert, in the same order
 */
export async function applyUnverifiedRecipientRule(
  tx: Tx,
  rows: NewEmail[],
  taskFacts: (taskId: string) => TaskNoticeFacts | undefined,
): Promise<NewEmail[]> {
  const taskRows = rows.filter((r) => r.taskId);
  if (taskRows.length === 0) return rows;
  const verified = await verifiedAddresses(
    tx,
    taskRows.map((r) => r.toAddress),
  );
  const limit = getConfig().UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY;
  const sentToday = new Map<string, number>();
  const since = new Date(Date.now() - 24 * 3600 * 1000);
  const out: NewEmail[] = [];
  for (const row of rows) {
    const address = row.toAddress.trim().toLowerCase();
    if (!row.taskId || verified.has(address)) {
      out.push(row);
      continue;
    }
    let used = sentToday.get(address);
    if (used === undefined) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`unverified-mail:${address}`}))`);
      const [counted] = await tx
        .select({ n: count() })
        .from(emails)
        .where(
          and(
            eq(sql`lower(${emails.toAddress})`, address),
            eq(emails.template, "task-notice"),
            ne(emails.status, "suppressed"),
            gt(emails.createdAt, since),
          ),
        );
      used = Number(counted?.n ?? 0);
    }
    const lang: Lang = row.lang ?? "en";
    const { subject, text } = renderTemplate("task-notice", lang, {
      task_id: row.taskId,
      status: taskFacts(row.taskId)?.status ?? "",
      status_label:
        taskStatusLabel(taskFacts(row.taskId)?.status, lang) ?? taskFacts(row.taskId)?.status ?? "",
      status_url: taskLinks(row.taskId).self,
      operator_name: getConfig().OPERATOR_NAME,
      contact_email: getConfig().CONTACT_EMAIL,
    });
    const over = used >= limit;
    if (!over) used++;
    sentToday.set(address, used);
    out.push({
      ...row,
      subject,
      textBody: text,
      htmlBody: null,
      template: "task-notice",
      attachments: null,
      ...(over
        ? {
            status: "suppressed" as const,
            error: `not sent: ${limit} e-mails per unverified address per 24 h (UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY)`,
          }
        : {}),
    });
  }
  return out;
}
