/**
 * Strings of the operator console in English and French, and the helpers that pick the
 * language (stored choice, else navigator.language, else English) and format numbers and
 * dates. Times are shown in America/Toronto, the service's timezone (interface spec §6).
 */

export const LANGS = ["en", "fr"];
const STORAGE_KEY = "operator.lang";
export const TIME_ZONE = "America/Toronto";

/** @type {Record<string, Record<string, string>>} */
export const MESSAGES = {
  en: {
    "app.title": "Operator console",
    "app.skip": "Skip to content",
    "app.language": "Language",
    "app.logout": "Log out",
    "app.loading": "Loading…",
    "app.refresh": "Refresh",
    "app.back_queue": "Back to the queue",
    "app.none": "—",
    "nav.label": "Sections",
    "nav.queue": "Queue",
    "nav.tasks": "Tasks",
    "nav.payments": "Payments",
    "nav.refunds": "Refunds",
    "nav.dead_letters": "Dead letters",
    "nav.analytics": "Analytics",
    "login.title": "Operator sign-in",
    "login.intro":
      "Paste an API key with the admin scope. It is kept only in this browser tab (sessionStorage) and sent as the x-api-key header; closing the tab forgets it.",
    "login.key": "Admin API key",
    "login.submit": "Sign in",
    "login.checking": "Checking the key…",
    "login.invalid": "This key is not valid.",
    "login.not_admin": "This key does not have the admin scope.",
    "login.ok": "Signed in.",
    "login.logged_out": "Signed out; the key was forgotten.",
    "login.expired": "The key was refused; please sign in again.",
    "queue.title": "Review queue",
    "queue.intro": "Tasks waiting for review, the closest review deadline first.",
    "queue.empty": "No task is waiting for review.",
    "queue.count": "{n} task(s) waiting",
    "tasks.title": "Tasks",
    "tasks.status": "Status",
    "tasks.service": "Service",
    "tasks.search": "Search (id, description, address, e-mail)",
    "tasks.all": "All",
    "tasks.filter": "Apply filters",
    "tasks.empty": "No task matches.",
    "tasks.range": "{from}–{to} of {total}",
    "tasks.prev": "Previous page",
    "tasks.next": "Next page",
    "tasks.include_sandbox": "Include sandbox tasks",
    "sla.left": "{t} left",
    "sla.overdue": "overdue by {t}",
    "sla.review": "Review SLA",
    "sla.execution": "Execution SLA",
    "card.estimate": "Estimate",
    "card.over_budget": "Estimate above budget",
    "card.refund_pending": "Refund pending",
    "task.title": "Task {id}",
    "task.not_found": "Task not found.",
    "task.request": "What the agent sent",
    "task.service": "Service",
    "task.status": "Status",
    "task.urgency": "Urgency",
    "task.description": "Description",
    "task.address": "Address",
    "task.map": "Open the address in OpenStreetMap (new tab)",
    "task.contact": "Requester contact",
    "task.special": "Special instructions",
    "task.budget": "Budget limit",
    "task.max_cost": "Maximum cost",
    "task.preferred_output": "Preferred output",
    "task.callback": "Callback URL",
    "task.lang": "E-mail language",
    "task.sandbox": "Sandbox",
    "task.created": "Submitted",
    "task.updated": "Updated",
    "task.review_deadline": "Review deadline",
    "task.execution_deadline": "Execution deadline",
    "task.review_reason": "Review reason",
    "task.refund": "Refund",
    "task.location": "Location",
    "task.location_matched": "Matched place",
    "task.location_source": "Source",
    "task.location_zone": "In the service zone",
    "task.estimate": "Estimate breakdown",
    "task.estimate_item": "Item",
    "task.estimate_value": "Value",
    "task.estimate_total": "Estimate total",
    "task.payment": "Payment",
    "task.payment_amount": "Amount (CAD)",
    "task.payment_usdc": "USDC to pay",
    "task.payment_method": "Method",
    "task.payment_rate": "Exchange rate (USD per CAD)",
    "task.payment_expires": "Payment window closes",
    "task.payment_paid": "Paid at",
    "task.payment_network": "Network",
    "task.payment_tx": "Transaction",
    "task.payment_wallets": "Wallets",
    "task.counter_offer": "Counter-offer amount",
    "task.result": "Result",
    "task.proof": "Proof files",
    "task.operator_notes": "Operator notes",
    "task.completed_at": "Completed at",
    "task.failure_reason": "Failure reason",
    "task.history": "History",
    "task.actions": "Actions",
    "task.no_actions": "No action is possible in this status.",
    yes: "yes",
    no: "no",
    "est.base_fee": "Base fee",
    "est.site_hours": "Site hours",
    "est.site_cost": "Site cost",
    "est.distance_km_one_way": "Distance from the hub (km, one way)",
    "est.km_roundtrip": "Round trip (km)",
    "est.km_cost": "Distance cost",
    "est.transport_hours": "Transport hours",
    "est.transport_cost": "Transport cost",
    "est.urgency_multiplier": "Urgency multiplier",
    "est.subtotal": "Subtotal",
    "action.approve": "Approve",
    "action.approve_help":
      "Leave the price empty to use the estimate. Above the budget limit, an approval becomes a counter-offer.",
    "action.price": "Price (CAD, optional)",
    "action.notes": "Operator notes (optional)",
    "action.counter_offer": "Counter-offer",
    "action.amount": "Amount (CAD)",
    "action.reason": "Reason",
    "action.reason_optional": "Reason (optional, shown to the requester)",
    "action.reject": "Reject",
    "action.reject_confirm": "Reject this task? This cannot be undone.",
    "action.payment": "Record a payment received out of band",
    "action.payment_network": "Network (optional)",
    "action.payment_tx": "Transaction hash (optional, 0x…)",
    "action.payment_note": "Note (optional)",
    "action.payment_submit": "Record payment",
    "action.dispatch": "Dispatch",
    "action.on_site": "On site",
    "action.progress": "Progress",
    "action.complete": "Complete with proof",
    "action.photos": "Take or choose photos",
    "action.files": "Add other files (PDF, images)",
    "action.selected": "Selected files",
    "action.no_files": "No file selected yet.",
    "action.remove": "Remove {name}",
    "action.complete_submit": "Complete task",
    "action.fail": "Fail",
    "action.fail_submit": "Mark as failed",
    "action.fail_confirm": "Mark this task as failed? This cannot be undone.",
    "action.sending": "Sending…",
    "action.too_big":
      "The files are too large ({size}); the limit is {limit} in all. Remove some or take smaller photos.",
    "action.too_many": "At most 10 files per completion.",
    "action.done.approve": "Task approved.",
    "action.done.counter_offer": "Counter-offer sent.",
    "action.done.reject": "Task rejected.",
    "action.done.payment": "Payment recorded.",
    "action.refund": "Record the refund",
    "action.refund_amount": "Amount refunded (CAD)",
    "action.refund_tx": "USDC refund transaction (0x…, optional)",
    "action.refund_account": "Paid from a prepaid account: the amount is credited to the account.",
    "action.refund_note": "Note to the requester (optional)",
    "action.refund_submit": "Mark refunded",
    "action.deny": "Deny the refund",
    "action.deny_reason": "Reason, sent to the requester",
    "action.deny_submit": "Deny the refund",
    "action.deny_confirm": "Deny this refund? The requester is told at once.",
    "action.done.refund": "Refund recorded.",
    "action.done.deny": "Refund denied.",
    "refund.pending": "refund requested",
    "refund.refunded": "refunded",
    "refund.denied": "refund denied",
    "action.done.dispatch": "Task dispatched.",
    "action.done.on_site": "Operator marked on site.",
    "action.done.complete": "Task completed.",
    "action.done.fail": "Task marked as failed.",
    "action.done.replay": "Event queued for delivery again.",
    "payments.title": "Unmatched payments",
    "payments.intro":
      "USDC transfers the payment checker could not match to an open task (unmatched) or that arrived after the payment window (late). Refunds go back to the sender.",
    "payments.empty": "No unmatched payment.",
    "payments.unavailable": "Not available on this server (the endpoint is missing).",
    "payments.amount": "Amount (USDC)",
    "payments.from": "From",
    "payments.tx": "Transaction",
    "payments.block_time": "Block time",
    "payments.reason": "Reason",
    "payments.task": "Task",
    "refunds.title": "Refund requests",
    "refunds.intro":
      "Tasks cancelled after payment whose refund is pending (cancellation policy of each service).",
    "refunds.empty": "No refund request is pending.",
    "dead.title": "Webhook dead letters",
    "dead.intro":
      "Deliveries that failed every attempt are kept 72 hours. Enter a webhook id (wh_…) to list its dead letters and replay them.",
    "dead.webhook": "Webhook id",
    "dead.show": "Show dead letters",
    "dead.empty": "No dead letter for this webhook.",
    "dead.unavailable": "Not available on this server (the endpoint is missing).",
    "dead.event": "Event",
    "dead.attempts": "Attempts",
    "dead.last_status": "Last HTTP status",
    "dead.expires": "Expires",
    "dead.replay": "Replay {id}",
    "error.network": "The server could not be reached. Check the connection and try again.",
    "error.generic": "Error {code}: {message}",
    "error.field": "field: {field}",
    "error.request": "request {id}",
    "error.invalid_tx": "A transaction hash is 0x followed by 64 hexadecimal characters.",
    "status.received": "received",
    "status.accepted_pending_payment": "accepted, awaiting payment",
    "status.counter_offered": "counter-offered",
    "status.paid": "paid",
    "status.dispatched": "dispatched",
    "status.on_site": "on site",
    "status.completed": "completed",
    "status.failed": "failed",
    "status.rejected": "rejected",
    "status.payment_expired": "payment expired",
    "status.cancelled": "cancelled",
    "urgency.standard": "standard",
    "urgency.urgent": "urgent",
  },
  fr: {
    "app.title": "Console opérateur",
    "app.skip": "Aller au contenu",
    "app.language": "Langue",
    "app.logout": "Se déconnecter",
    "app.loading": "Chargement…",
    "app.refresh": "Actualiser",
    "app.back_queue": "Retour à la file",
    "app.none": "—",
    "nav.label": "Sections",
    "nav.queue": "File",
    "nav.tasks": "Tâches",
    "nav.payments": "Paiements",
    "nav.refunds": "Remboursements",
    "nav.dead_letters": "Webhooks",
    "nav.analytics": "Analytique",
    "login.title": "Connexion opérateur",
    "login.intro":
      "Collez une clé d'API ayant la portée admin. Elle n'est conservée que dans cet onglet (sessionStorage) et envoyée dans l'en-tête x-api-key; fermer l'onglet l'efface.",
    "login.key": "Clé d'API admin",
    "login.submit": "Se connecter",
    "login.checking": "Vérification de la clé…",
    "login.invalid": "Cette clé n'est pas valide.",
    "login.not_admin": "Cette clé n'a pas la portée admin.",
    "login.ok": "Connecté.",
    "login.logged_out": "Déconnecté; la clé a été oubliée.",
    "login.expired": "La clé a été refusée; veuillez vous reconnecter.",
    "queue.title": "File de révision",
    "queue.intro": "Tâches en attente de révision, l'échéance la plus proche d'abord.",
    "queue.empty": "Aucune tâche n'attend de révision.",
    "queue.count": "{n} tâche(s) en attente",
    "tasks.title": "Tâches",
    "tasks.status": "Statut",
    "tasks.service": "Service",
    "tasks.search": "Recherche (id, description, adresse, courriel)",
    "tasks.all": "Tous",
    "tasks.filter": "Appliquer les filtres",
    "tasks.empty": "Aucune tâche ne correspond.",
    "tasks.range": "{from}–{to} sur {total}",
    "tasks.prev": "Page précédente",
    "tasks.next": "Page suivante",
    "tasks.include_sandbox": "Inclure les tâches de bac à sable",
    "sla.left": "reste {t}",
    "sla.overdue": "en retard de {t}",
    "sla.review": "Délai de révision",
    "sla.execution": "Délai d'exécution",
    "card.estimate": "Estimation",
    "card.over_budget": "Estimation au-dessus du budget",
    "card.refund_pending": "Remboursement en attente",
    "task.title": "Tâche {id}",
    "task.not_found": "Tâche introuvable.",
    "task.request": "Ce que l'agent a envoyé",
    "task.service": "Service",
    "task.status": "Statut",
    "task.urgency": "Urgence",
    "task.description": "Description",
    "task.address": "Adresse",
    "task.map": "Ouvrir l'adresse dans OpenStreetMap (nouvel onglet)",
    "task.contact": "Contact du demandeur",
    "task.special": "Instructions particulières",
    "task.budget": "Budget maximal",
    "task.max_cost": "Coût maximal",
    "task.preferred_output": "Livrable souhaité",
    "task.callback": "URL de rappel",
    "task.lang": "Langue des courriels",
    "task.sandbox": "Bac à sable",
    "task.created": "Soumise",
    "task.updated": "Mise à jour",
    "task.review_deadline": "Échéance de révision",
    "task.execution_deadline": "Échéance d'exécution",
    "task.review_reason": "Motif de la révision",
    "task.refund": "Remboursement",
    "task.location": "Lieu",
    "task.location_matched": "Lieu reconnu",
    "task.location_source": "Source",
    "task.location_zone": "Dans la zone de service",
    "task.estimate": "Détail de l'estimation",
    "task.estimate_item": "Poste",
    "task.estimate_value": "Valeur",
    "task.estimate_total": "Total estimé",
    "task.payment": "Paiement",
    "task.payment_amount": "Montant (CAD)",
    "task.payment_usdc": "USDC à payer",
    "task.payment_method": "Mode",
    "task.payment_rate": "Taux de change (USD par CAD)",
    "task.payment_expires": "Fin de la fenêtre de paiement",
    "task.payment_paid": "Payé le",
    "task.payment_network": "Réseau",
    "task.payment_tx": "Transaction",
    "task.payment_wallets": "Portefeuilles",
    "task.counter_offer": "Montant de la contre-offre",
    "task.result": "Résultat",
    "task.proof": "Preuves",
    "task.operator_notes": "Notes de l'opérateur",
    "task.completed_at": "Terminée le",
    "task.failure_reason": "Motif de l'échec",
    "task.history": "Historique",
    "task.actions": "Actions",
    "task.no_actions": "Aucune action n'est possible dans ce statut.",
    yes: "oui",
    no: "non",
    "est.base_fee": "Frais de base",
    "est.site_hours": "Heures sur place",
    "est.site_cost": "Coût sur place",
    "est.distance_km_one_way": "Distance du centre (km, aller)",
    "est.km_roundtrip": "Aller-retour (km)",
    "est.km_cost": "Coût de la distance",
    "est.transport_hours": "Heures de transport",
    "est.transport_cost": "Coût du transport",
    "est.urgency_multiplier": "Multiplicateur d'urgence",
    "est.subtotal": "Sous-total",
    "action.approve": "Approuver",
    "action.approve_help":
      "Laissez le prix vide pour reprendre l'estimation. Au-dessus du budget, une approbation devient une contre-offre.",
    "action.price": "Prix (CAD, facultatif)",
    "action.notes": "Notes de l'opérateur (facultatif)",
    "action.counter_offer": "Contre-offre",
    "action.amount": "Montant (CAD)",
    "action.reason": "Motif",
    "action.reason_optional": "Motif (facultatif, montré au demandeur)",
    "action.reject": "Refuser",
    "action.reject_confirm": "Refuser cette tâche? C'est définitif.",
    "action.payment": "Enregistrer un paiement reçu hors chaîne",
    "action.payment_network": "Réseau (facultatif)",
    "action.payment_tx": "Hachage de transaction (facultatif, 0x…)",
    "action.payment_note": "Note (facultatif)",
    "action.payment_submit": "Enregistrer le paiement",
    "action.dispatch": "Envoyer l'opérateur",
    "action.on_site": "Sur place",
    "action.progress": "Avancement",
    "action.complete": "Terminer avec preuves",
    "action.photos": "Prendre ou choisir des photos",
    "action.files": "Ajouter d'autres fichiers (PDF, images)",
    "action.selected": "Fichiers choisis",
    "action.no_files": "Aucun fichier choisi.",
    "action.remove": "Retirer {name}",
    "action.complete_submit": "Terminer la tâche",
    "action.fail": "Échec",
    "action.fail_submit": "Marquer en échec",
    "action.fail_confirm": "Marquer cette tâche en échec? C'est définitif.",
    "action.sending": "Envoi…",
    "action.too_big":
      "Les fichiers sont trop gros ({size}); la limite est de {limit} au total. Retirez-en ou prenez des photos plus petites.",
    "action.too_many": "Au plus 10 fichiers par tâche terminée.",
    "action.done.approve": "Tâche approuvée.",
    "action.done.counter_offer": "Contre-offre envoyée.",
    "action.done.reject": "Tâche refusée.",
    "action.done.payment": "Paiement enregistré.",
    "action.refund": "Enregistrer le remboursement",
    "action.refund_amount": "Montant remboursé (CAD)",
    "action.refund_tx": "Transaction USDC du remboursement (0x…, facultatif)",
    "action.refund_account": "Payé depuis un compte prépayé : le montant est porté au crédit du compte.",
    "action.refund_note": "Note au demandeur (facultatif)",
    "action.refund_submit": "Marquer remboursé",
    "action.deny": "Refuser le remboursement",
    "action.deny_reason": "Motif, envoyé au demandeur",
    "action.deny_submit": "Refuser le remboursement",
    "action.deny_confirm": "Refuser ce remboursement? Le demandeur en est avisé aussitôt.",
    "action.done.refund": "Remboursement enregistré.",
    "action.done.deny": "Remboursement refusé.",
    "refund.pending": "remboursement demandé",
    "refund.refunded": "remboursé",
    "refund.denied": "remboursement refusé",
    "action.done.dispatch": "Opérateur envoyé.",
    "action.done.on_site": "Opérateur sur place.",
    "action.done.complete": "Tâche terminée.",
    "action.done.fail": "Tâche marquée en échec.",
    "action.done.replay": "Événement remis en livraison.",
    "payments.title": "Paiements non rapprochés",
    "payments.intro":
      "Virements USDC que le vérificateur n'a pu rapprocher d'aucune tâche ouverte (non rapprochés) ou arrivés après la fenêtre de paiement (en retard). Les remboursements retournent à l'expéditeur.",
    "payments.empty": "Aucun paiement non rapproché.",
    "payments.unavailable": "Non disponible sur ce serveur (point d'accès absent).",
    "payments.amount": "Montant (USDC)",
    "payments.from": "De",
    "payments.tx": "Transaction",
    "payments.block_time": "Heure du bloc",
    "payments.reason": "Motif",
    "payments.task": "Tâche",
    "refunds.title": "Demandes de remboursement",
    "refunds.intro":
      "Tâches annulées après paiement dont le remboursement est en attente (politique d'annulation de chaque service).",
    "refunds.empty": "Aucune demande de remboursement en attente.",
    "dead.title": "Webhooks en échec",
    "dead.intro":
      "Les livraisons qui ont échoué à chaque tentative sont conservées 72 heures. Entrez un id de webhook (wh_…) pour les voir et les relancer.",
    "dead.webhook": "Id du webhook",
    "dead.show": "Afficher les échecs",
    "dead.empty": "Aucun échec pour ce webhook.",
    "dead.unavailable": "Non disponible sur ce serveur (point d'accès absent).",
    "dead.event": "Événement",
    "dead.attempts": "Tentatives",
    "dead.last_status": "Dernier statut HTTP",
    "dead.expires": "Expire",
    "dead.replay": "Relancer {id}",
    "error.network": "Le serveur est injoignable. Vérifiez la connexion et réessayez.",
    "error.generic": "Erreur {code} : {message}",
    "error.field": "champ : {field}",
    "error.request": "requête {id}",
    "error.invalid_tx": "Un hachage de transaction est 0x suivi de 64 caractères hexadécimaux.",
    "status.received": "reçue",
    "status.accepted_pending_payment": "acceptée, en attente de paiement",
    "status.counter_offered": "contre-offre",
    "status.paid": "payée",
    "status.dispatched": "opérateur en route",
    "status.on_site": "sur place",
    "status.completed": "terminée",
    "status.failed": "échouée",
    "status.rejected": "refusée",
    "status.payment_expired": "paiement expiré",
    "status.cancelled": "annulée",
    "urgency.standard": "standard",
    "urgency.urgent": "urgente",
  },
};

let current = initialLang();

/** The stored choice, else the browser's language when it is French, else English. */
function initialLang() {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && LANGS.includes(stored)) return stored;
  } catch {
    // storage unavailable (private mode): fall through
  }
  const nav = (globalThis.navigator?.languages?.[0] ?? globalThis.navigator?.language ?? "en").toLowerCase();
  return nav.startsWith("fr") ? "fr" : "en";
}

/** The current language, `en` or `fr`. */
export function getLang() {
  return current;
}

/** Switches the language, remembers it (not a secret: localStorage) and sets <html lang>. */
export function setLang(lang) {
  if (!LANGS.includes(lang)) return;
  current = lang;
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // ignore
  }
  document.documentElement.lang = lang;
}

/** The string `key` in the current language with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = MESSAGES[current]?.[key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function locale() {
  return current === "fr" ? "fr-CA" : "en-CA";
}

/** A CAD amount, e.g. "$1,234.50" / "1 234,50 $". */
export function formatCad(value) {
  if (value === null || value === undefined) return t("app.none");
  return new Intl.NumberFormat(locale(), { style: "currency", currency: "CAD" }).format(value);
}

/** A plain number with up to `digits` decimals. */
export function formatNumber(value, digits = 4) {
  if (value === null || value === undefined) return t("app.none");
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(value);
}

/** A date-time in America/Toronto. */
export function formatDateTime(iso) {
  if (!iso) return t("app.none");
  return new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: TIME_ZONE,
  }).format(new Date(iso));
}

/** A duration in milliseconds as "2 d 3 h", "3 h 05 min" or "12 min". */
export function formatDuration(ms) {
  const minutes = Math.max(0, Math.floor(Math.abs(ms) / 60000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return `${days} ${current === "fr" ? "j" : "d"} ${hours} h`;
  if (hours > 0) return `${hours} h ${String(mins).padStart(2, "0")} min`;
  return `${mins} min`;
}

/** A byte count as "1.2 MB". */
export function formatBytes(bytes) {
  const unit = current === "fr" ? ["o", "Ko", "Mo"] : ["B", "KB", "MB"];
  if (bytes < 1000) return `${bytes} ${unit[0]}`;
  if (bytes < 1_000_000) return `${formatNumber(bytes / 1000, 0)} ${unit[1]}`;
  return `${formatNumber(bytes / 1_000_000, 1)} ${unit[2]}`;
}
