/**
 * The link to a task's pay page (`/pay/#task_id=…&pay_token=…`; docs/x402.md "The pay page"), with
 * its pay token: a purpose-bound JWT (lib/auth/jwt.ts, audience "task-pay", subject the task id)
 * that expires with the task's payment window, at most {@link PAY_TOKEN_MAX_SECONDS}. Made here, in
 * the payments service, so that both the MCP adapter (URL elicitation) and the e-mail dispatcher
 * (payment instructions, counter-offer) can link the page; lib/tasks/pay-page.ts reads it.
 */
import { publicBaseUrl } from "../config.js";
import type { Task } from "../db/schema/index.js";

/** The pay token's audience: no other verifier accepts it, and it accepts no other token. */
export const PAY_TOKEN_AUDIENCE = "task-pay";
/** Longest life of a pay token, seconds (7 days), when the task's payment window is longer or open. */
export const PAY_TOKEN_MAX_SECONDS = 7 * 24 * 3600;

/**
 * The pay page URL of `task` (absolute, on PUBLIC_BASE_URL) with a fresh pay token in the fragment
 * (a fragment is not sent to servers, so the token stays out of access logs and Referer).
 * @returns `{ url, expiresAt }`, the token's end being the payment window's (at most 7 days)
 */
export async function payPageUrl(
  task: Pick<Task, "id" | "paymentExpiresAt">,
  now = new Date(),
): Promise<{ url: string; expiresAt: Date }> {
  const { signPurposeToken } = await import("../auth/jwt.js");
  const longest = new Date(now.getTime() + PAY_TOKEN_MAX_SECONDS * 1000);
  const expiresAt =
    task.paymentExpiresAt && task.paymentExpiresAt < longest ? task.paymentExpiresAt : longest;
  const token = await signPurposeToken(PAY_TOKEN_AUDIENCE, {}, { subject: task.id, expiresAt, now });
  const fragment = new URLSearchParams({ task_id: task.id, pay_token: token });
  return { url: `${publicBaseUrl()}/pay/#${fragment}`, expiresAt };
}
