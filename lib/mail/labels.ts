/**
 * The words a person reads for the codes of a dispute and a task, in each language: a dispute's
 * reason (`not_done` → "not done" / "non fait"), its resolution (`partial_refund` → "partial refund" /
 * "remboursement partiel") and a task's status (`on_site` → "on site" / "sur place"). E-mails (lib/mail/compose-task-email.ts) use them so that no code
 * reaches the requester.
 *
 * The pages have the same words in public/shared/messages.js (`dispute.reason.*`,
 * `dispute.resolution.*`, `status.*`); lib/ may not import public/, so they are mirrored here and
 * tests/notifications/mail-labels.test.ts fails when the two differ.
 */
import type { DisputeReason, DisputeResolution, Lang, TaskStatus } from "../db/schema/enums.js";

/** A dispute's reason in words, per language (public/shared/messages.js `dispute.reason.*`). */
export const DISPUTE_REASON_LABELS: Record<Lang, Record<DisputeReason, string>> = {
  en: {
    not_done: "not done",
    incomplete: "incomplete",
    wrong_location: "wrong location",
    damaged: "damaged",
    late: "late",
    other: "other",
  },
  fr: {
    not_done: "non fait",
    incomplete: "incomplet",
    wrong_location: "mauvais endroit",
    damaged: "endommagé",
    late: "en retard",
    other: "autre",
  },
};

/** A dispute's resolution in words, per language (public/shared/messages.js `dispute.resolution.*`). */
export const DISPUTE_RESOLUTION_LABELS: Record<Lang, Record<DisputeResolution, string>> = {
  en: {
    redo: "done again at no charge",
    partial_refund: "partial refund",
    full_refund: "full refund",
    reject: "rejected",
  },
  fr: {
    redo: "refait sans frais",
    partial_refund: "remboursement partiel",
    full_refund: "remboursement complet",
    reject: "refusé",
  },
};

/** A task's status in words, per language (public/shared/messages.js `status.*`). */
export const TASK_STATUS_LABELS: Record<Lang, Record<TaskStatus, string>> = {
  en: {
    received: "received",
    accepted_pending_payment: "accepted, awaiting payment",
    counter_offered: "counter-offered",
    paid: "paid",
    dispatched: "dispatched",
    on_site: "on site",
    completed: "completed",
    failed: "failed",
    rejected: "rejected",
    payment_expired: "payment expired",
    cancelled: "cancelled",
  },
  fr: {
    received: "reçue",
    accepted_pending_payment: "acceptée, en attente de paiement",
    counter_offered: "contre-offre",
    paid: "payée",
    dispatched: "opérateur en route",
    on_site: "sur place",
    completed: "terminée",
    failed: "échouée",
    rejected: "refusée",
    payment_expired: "paiement expiré",
    cancelled: "annulée",
  },
};

/** The entry of `table` for `code` (own keys only), or null for an unknown or absent code. */
function lookup(table: Record<string, string>, code: unknown): string | null {
  return typeof code === "string" && Object.hasOwn(table, code) ? table[code]! : null;
}

/**
 * The words of dispute reason `code` in `lang`.
 * @param code a value of DISPUTE_REASONS (lib/db/schema/enums.ts), as an event payload carries it
 * @returns the words, or null when `code` is not a known reason (never the code itself)
 */
export function disputeReasonLabel(code: unknown, lang: Lang): string | null {
  return lookup(DISPUTE_REASON_LABELS[lang], code);
}

/**
 * The words of dispute resolution `code` in `lang`.
 * @param code a value of DISPUTE_RESOLUTIONS (lib/db/schema/enums.ts), as an event payload carries it
 * @returns the words, or null when `code` is not a known resolution (never the code itself)
 */
export function disputeResolutionLabel(code: unknown, lang: Lang): string | null {
  return lookup(DISPUTE_RESOLUTION_LABELS[lang], code);
}

/**
 * The words of task status `code` in `lang`.
 * @param code a value of TASK_STATUSES (lib/db/schema/enums.ts)
 * @returns the words, or null when `code` is not a known status (never the code itself)
 */
export function taskStatusLabel(code: unknown, lang: Lang): string | null {
  return lookup(TASK_STATUS_LABELS[lang], code);
}
