/**
 * E-mails of client accounts, written to the `emails` outbox (the mail worker sends
 * queued rows): e-mail verification and password reset, in the account's language.
 * Each carries its one-time token and the API call that redeems it.
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

/** Queues the e-mail-verification message carrying `token` (valid until `expiresAt`). */
export async function queueVerificationEmail(tx: Tx, account: Recipient, token: string, expiresAt: Date) {
  const base = publicBaseUrl();
  const fr = account.lang === "fr";
  const textBody = fr
    ? `Bonjour ${account.contactName},\n\nConfirmez votre adresse courriel avec ce code (valide jusqu'au ${expiresAt.toISOString()}) :\n\n${token}\n\n` +
      `Envoyez-le a ${base}/api/client-auth?action=verify-email : {"token": "${token}"}\n\n${getConfig().OPERATOR_NAME}`
    : `Hello ${account.contactName},\n\nConfirm your e-mail address with this code (valid until ${expiresAt.toISOString()}):\n\n${token}\n\n` +
      `Send it to ${base}/api/client-auth?action=verify-email as {"token": "${token}"}\n\n${getConfig().OPERATOR_NAME}`;
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
  const fr = account.lang === "fr";
  const textBody = fr
    ? `Bonjour ${account.contactName},\n\nUne reinitialisation du mot de passe a ete demandee. Code (valide jusqu'au ${expiresAt.toISOString()}) :\n\n${token}\n\n` +
      `Envoyez-le avec le nouveau mot de passe a ${base}/api/client-auth?action=reset-confirm : {"token": "${token}", "password": "..."}\n\n` +
      `Si vous n'avez rien demande, ignorez ce message.\n\n${getConfig().OPERATOR_NAME}`
    : `Hello ${account.contactName},\n\nA password reset was requested. Code (valid until ${expiresAt.toISOString()}):\n\n${token}\n\n` +
      `Send it with the new password to ${base}/api/client-auth?action=reset-confirm as {"token": "${token}", "password": "..."}\n\n` +
      `If you did not ask for this, ignore this message.\n\n${getConfig().OPERATOR_NAME}`;
  await tx.insert(emails).values({
    id: prefixedId("em"),
    toAddress: account.email,
    subject: fr ? "Reinitialisation du mot de passe" : "Reset your password",
    textBody,
    template: "account-password-reset",
    lang: account.lang,
    accountId: account.id,
    dedupeKey: `reset-password:${token.slice(-12)}:${account.id}`,
  });
}
