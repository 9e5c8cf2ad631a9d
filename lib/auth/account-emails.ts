/**
 * E-mails of client accounts, written to the `emails` outbox (the mail worker sends
 * queued rows): e-mail verification, password reset and the notice of a registration for an
 * address that already has an account, in the account's language.
 * Each carries its one-time token, a link to the dashboard page that redeems it, and the
 * API call that does the same. The code is in the row only until the message is sent: the mail
 * worker then blanks it (lib/mail/send-queued-emails.ts `redactOneTimeCodes`), and the database
 * keeps only the code's SHA-256 (`auth_tokens`).
 */
import { getConfig, publicBaseUrl } from "../config.js";
import type { Tx } from "../db/client.js";
import type { Lang } from "../db/schema/enums.js";
import { emails } from "../db/schema/index.js";
import { prefixedId, sha256Hex } from "../ids.js";

interface Recipient {
  id: string;
  email: string;
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

/** Dedupe key of a code's message: names the code by a hash prefix, never by its characters. */
function codeDedupeKey(kind: string, token: string, accountId: string): string {
  return `${kind}:${sha256Hex(token).slice(0, 16)}:${accountId}`;
}

/**
 * Queues in `tx` a message to `account` that carries the one-time code `token`, de-duplicated by
 * `kind`, the code (by a hash prefix) and the account.
 */
async function queueCodeEmail(
  tx: Tx,
  account: Recipient,
  token: string,
  message: { kind: string; template: string; subject: string; textBody: string },
): Promise<void> {
  await tx.insert(emails).values({
    id: prefixedId("em"),
    toAddress: account.email,
    subject: message.subject,
    textBody: message.textBody,
    template: message.template,
    lang: account.lang,
    accountId: account.id,
    dedupeKey: codeDedupeKey(message.kind, token, account.id),
  });
}

/**
 * Queues the e-mail-verification message carrying `token` (valid until `expiresAt`). When the account
 * was opened with an API key (`openedWithKey`: the key's last 4 characters), the message names that
 * key and says that verifying does not link it, so a stranger's key never gains access to the account
 * through a click on this link. The address is not verified yet, so the message carries no text a
 * requester typed (no contact name, no key name): only our own words, the code and the link (docs/security.md
 * "Security model").
 */
export async function queueVerificationEmail(
  tx: Tx,
  account: Recipient,
  token: string,
  expiresAt: Date,
  openedWithKey?: { hint: string },
) {
  const base = publicBaseUrl();
  const link = dashboardCodeLink("verify", token, account.email);
  const fr = account.lang === "fr";
  const keyNote = openedWithKey
    ? fr
      ? `Ce compte a été ouvert par un programme avec une clé d'API qui se termine par « …${openedWithKey.hint} ». ` +
        `Confirmer l'adresse ne relie PAS cette clé au compte : elle ne peut ni lire le compte ni y facturer. ` +
        `Si cette clé est la vôtre, reliez-la vous-même une fois connecté (tableau de bord, « Clés d'API »).\n\n`
      : `This account was opened by a program with an API key ending in "…${openedWithKey.hint}". ` +
        `Confirming the address does NOT link that key to the account: it can neither read the account nor bill it. ` +
        `If the key is yours, link it yourself once signed in (dashboard, "API keys").\n\n`
    : "";
  const notYou = fr
    ? `Si vous n'avez pas demandé ce compte, ignorez ce message : sans confirmation, il n'est pas utilisable.\n\n`
    : `If you did not ask for this account, ignore this message: unconfirmed, it cannot be used.\n\n`;
  const textBody = fr
    ? `Bonjour,\n\n${keyNote}Confirmez votre adresse courriel en ouvrant ce lien (valide jusqu'au ${expiresAt.toISOString()}) :\n\n${link}\n\n` +
      `ou avec ce code :\n\n${token}\n\n` +
      `Programmes : envoyez-le à ${base}/api/client-auth?action=verify-email : {"token": "${token}"}\n\n${notYou}${getConfig().OPERATOR_NAME}`
    : `Hello,\n\n${keyNote}Confirm your e-mail address by opening this link (valid until ${expiresAt.toISOString()}):\n\n${link}\n\n` +
      `or with this code:\n\n${token}\n\n` +
      `Programs: send it to ${base}/api/client-auth?action=verify-email as {"token": "${token}"}\n\n${notYou}${getConfig().OPERATOR_NAME}`;
  await queueCodeEmail(tx, account, token, {
    kind: "verify-email",
    template: "account-verify-email",
    subject: fr ? "Confirmez votre adresse courriel" : "Confirm your e-mail address",
    textBody,
  });
}

/**
 * Queues the password-reset message carrying `token` (valid until `expiresAt`). Like the verification
 * message, it carries no text a requester typed (the account's profile may be a squatter's).
 */
export async function queueResetEmail(tx: Tx, account: Recipient, token: string, expiresAt: Date) {
  const base = publicBaseUrl();
  const link = dashboardCodeLink("reset", token, account.email);
  const fr = account.lang === "fr";
  const textBody = fr
    ? `Bonjour,\n\nUne réinitialisation du mot de passe a été demandée. Choisissez le nouveau mot de passe en ouvrant ce lien (valide jusqu'au ${expiresAt.toISOString()}) :\n\n${link}\n\n` +
      `ou avec ce code :\n\n${token}\n\n` +
      `Programmes : envoyez-le avec le nouveau mot de passe à ${base}/api/client-auth?action=reset-confirm : {"token": "${token}", "password": "..."}\n\n` +
      `Si vous n'avez rien demandé, ignorez ce message.\n\n${getConfig().OPERATOR_NAME}`
    : `Hello,\n\nA password reset was requested. Choose the new password by opening this link (valid until ${expiresAt.toISOString()}):\n\n${link}\n\n` +
      `or with this code:\n\n${token}\n\n` +
      `Programs: send it with the new password to ${base}/api/client-auth?action=reset-confirm as {"token": "${token}", "password": "..."}\n\n` +
      `If you did not ask for this, ignore this message.\n\n${getConfig().OPERATOR_NAME}`;
  await queueCodeEmail(tx, account, token, {
    kind: "reset-password",
    template: "account-password-reset",
    subject: fr ? "Réinitialisation du mot de passe" : "Reset your password",
    textBody,
  });
}

/**
 * Queues the notice that a registration was made for the address of `account`, which already has a
 * verified account (POST /api/client-account answers such a registration exactly like a new one, so
 * the answer never tells whether an address has an account: this message tells its owner; issue
 * 25). Nothing was changed. When a key was used (`openedWithKey`: its last 4 characters) the message
 * names it. Like the other account messages it carries no text the registrant typed.
 */
export async function queueAccountExistsEmail(
  tx: Tx,
  account: Recipient,
  openedWithKey?: { hint: string },
): Promise<void> {
  const base = publicBaseUrl();
  const fr = account.lang === "fr";
  const who = openedWithKey
    ? fr
      ? `Un programme avec une clé d'API qui se termine par « …${openedWithKey.hint} » a demandé`
      : `A program with an API key ending in "…${openedWithKey.hint}" asked`
    : fr
      ? "Quelqu'un a demandé"
      : "Someone asked";
  const textBody = fr
    ? `Bonjour,\n\n${who} l'ouverture d'un compte pour cette adresse courriel, qui en a déjà un. Rien n'a été modifié.\n\n` +
      `Connectez-vous à ${base}/client/ ; mot de passe oublié : ${base}/client/#/reset ` +
      `(programmes : ${base}/api/client-auth?action=reset-request).\n\n` +
      `Si ce n'était pas vous, ignorez ce message.\n\n${getConfig().OPERATOR_NAME}`
    : `Hello,\n\n${who} to open an account for this e-mail address, which already has one. Nothing was changed.\n\n` +
      `Sign in at ${base}/client/; forgot your password: ${base}/client/#/reset ` +
      `(programs: ${base}/api/client-auth?action=reset-request).\n\n` +
      `If this was not you, ignore this message.\n\n${getConfig().OPERATOR_NAME}`;
  await tx.insert(emails).values({
    id: prefixedId("em"),
    toAddress: account.email,
    subject: fr ? "Un compte existe déjà pour cette adresse" : "An account already exists for this address",
    textBody,
    template: "account-exists",
    lang: account.lang,
    accountId: account.id,
  });
}
