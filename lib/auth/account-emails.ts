/**
 * E-mails of client accounts, written to the `emails` outbox (the mail worker sends
 * queued rows): e-mail verification and password reset, in the account's language.
 * Each carries its one-time token, a link to the dashboard page that redeems it, and the
 * API call that does the same.
 */
import { getConfig, publicBaseUrl } from "../config.js";
import type { Tx } from "../db/client.js";
import type { Lang } from "../db/schema/enums.js";
import { emails } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";

interface Recipient {
  id: string;
  email: string;
  contactName: string;
  lang: Lang;
}

/**
 * The client dashboard's page for a one-time code, with the code filled in
 * (public/client/app.js `#/verify`, `#/reset`): the e-mails link to it.
 */
export function dashboardCodeLink(page: "verify" | "reset", token: string, email: string): string {
  const query = new URLSearchParams({ token, email });
  return `${publicBaseUrl()}/client/#/${page}?${query.toString()}`;
}

/** Queues the e-mail-verification message carrying `token` (valid until `expiresAt`). */
export async function queueVerificationEmail(tx: Tx, account: Recipient, token: string, expiresAt: Date) {
  const base = publicBaseUrl();
  const link = dashboardCodeLink("verify", token, account.email);
  const fr = account.lang === "fr";
  const textBody = fr
    ? `Bonjour ${account.contactName},\n\nConfirmez votre adresse courriel en ouvrant ce lien (valide jusqu'au ${expiresAt.toISOString()}) :\n\n${link}\n\n` +
      `ou avec ce code :\n\n${token}\n\n` +
      `Programmes : envoyez-le à ${base}/api/client-auth?action=verify-email : {"token": "${token}"}\n\n${getConfig().OPERATOR_NAME}`
    : `Hello ${account.contactName},\n\nConfirm your e-mail address by opening this link (valid until ${expiresAt.toISOString()}):\n\n${link}\n\n` +
      `or with this code:\n\n${token}\n\n` +
      `Programs: send it to ${base}/api/client-auth?action=verify-email as {"token": "${token}"}\n\n${getConfig().OPERATOR_NAME}`;
  await tx.insert(emails).values({
    id: prefixedId("em"),
    toAddress: account.email,
    subject: fr ? "Confirmez votre adresse courriel" : "Confirm your e-mail address",
    textBody,
    template: "account-verify-email",
    lang: account.lang,
    accountId: account.id,
    dedupeKey: `verify-email:${token.slice(-12)}:${account.id}`,
  });
}

/** Queues the password-reset message carrying `token` (valid until `expiresAt`). */
export async function queueResetEmail(tx: Tx, account: Recipient, token: string, expiresAt: Date) {
  const base = publicBaseUrl();
  const link = dashboardCodeLink("reset", token, account.email);
  const fr = account.lang === "fr";
  const textBody = fr
    ? `Bonjour ${account.contactName},\n\nUne réinitialisation du mot de passe a été demandée. Choisissez le nouveau mot de passe en ouvrant ce lien (valide jusqu'au ${expiresAt.toISOString()}) :\n\n${link}\n\n` +
      `ou avec ce code :\n\n${token}\n\n` +
      `Programmes : envoyez-le avec le nouveau mot de passe à ${base}/api/client-auth?action=reset-confirm : {"token": "${token}", "password": "..."}\n\n` +
      `Si vous n'avez rien demandé, ignorez ce message.\n\n${getConfig().OPERATOR_NAME}`
    : `Hello ${account.contactName},\n\nA password reset was requested. Choose the new password by opening this link (valid until ${expiresAt.toISOString()}):\n\n${link}\n\n` +
      `or with this code:\n\n${token}\n\n` +
      `Programs: send it with the new password to ${base}/api/client-auth?action=reset-confirm as {"token": "${token}", "password": "..."}\n\n` +
      `If you did not ask for this, ignore this message.\n\n${getConfig().OPERATOR_NAME}`;
  await tx.insert(emails).values({
    id: prefixedId("em"),
    toAddress: account.email,
    subject: fr ? "Réinitialisation du mot de passe" : "Reset your password",
    textBody,
    template: "account-password-reset",
    lang: account.lang,
    accountId: account.id,
    dedupeKey: `reset-password:${token.slice(-12)}:${account.id}`,
  });
}
