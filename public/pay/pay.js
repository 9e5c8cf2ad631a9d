/**
 * The pay page of a task awaiting payment (/pay/#task_id=…&pay_token=…; docs/x402.md "The pay
 * page"): where a person pays the task their agent submitted, reached from the URL elicitation
 * MCP `tasks/result` sends. Reads GET /api/task-pay with the pay token of the URL's fragment
 * (never sent to the server as part of the URL), shows the exact amount, the wallets and the
 * deadline, and asks again every 10 s until the task is paid. English and French.
 */
import { EN as SHARED_EN, FR as SHARED_FR } from "../shared/messages.js";

/** This page's texts; a task's status is named by the common dictionary (`status.*`). */
const MESSAGES = {
  en: {
    title: "Pay for a task",
    language: "Language",
    heading: "Pay for task {task}",
    "pay.title": "Send exactly this amount, once",
    "pay.amount": "Amount",
    "pay.amount_cad": "Price",
    "pay.deadline": "Pay before",
    "pay.exact":
      "The amount identifies your task: send it exactly, in one transfer, to one of these wallets. A different amount does not pay it.",
    "pay.network": "Network",
    "pay.wallet": "Wallet",
    "pay.contract": "USDC contract",
    "pay.x402": "A wallet that speaks x402 can instead pay with one signature, without gas, at {url}",
    "pay.waiting": "Waiting for the payment. This page updates by itself.",
    "done.paid": "Paid",
    "done.other": "This task does not wait for a payment",
    "done.status": "Status",
    "done.paid_at": "Paid at",
    "done.tx": "Transaction",
    "done.next": "You can close this page: your assistant follows the task from here.",
    "error.link": "This link is not valid or has expired. Ask your assistant for a new one.",
    "error.generic": "The page could not be loaded: {message}. It will try again.",
    loading: "Loading…",
  },
  fr: {
    title: "Payer une tâche",
    language: "Langue",
    heading: "Payer la tâche {task}",
    "pay.title": "Envoyez exactement ce montant, une fois",
    "pay.amount": "Montant",
    "pay.amount_cad": "Prix",
    "pay.deadline": "Payer avant",
    "pay.exact":
      "Le montant identifie votre tâche : envoyez-le exactement, en un seul transfert, à l'un de ces portefeuilles. Un autre montant ne la paie pas.",
    "pay.network": "Réseau",
    "pay.wallet": "Portefeuille",
    "pay.contract": "Contrat USDC",
    "pay.x402":
      "Un portefeuille qui parle x402 peut plutôt payer d'une seule signature, sans frais de gaz, à {url}",
    "pay.waiting": "En attente du paiement. Cette page se met à jour d'elle-même.",
    "done.paid": "Payée",
    "done.other": "Cette tâche n'attend pas de paiement",
    "done.status": "Statut",
    "done.paid_at": "Payée le",
    "done.tx": "Transaction",
    "done.next": "Vous pouvez fermer cette page : votre assistant suit la tâche à partir d'ici.",
    "error.link": "Ce lien n'est pas valide ou a expiré. Demandez-en un nouveau à votre assistant.",
    "error.generic": "La page n'a pas pu être chargée : {message}. Nouvel essai sous peu.",
    loading: "Chargement…",
  },
};

/** How often the page asks again while the task waits for its payment, milliseconds. */
const POLL_MS = 10_000;

const params = new URLSearchParams(location.hash.slice(1));
const taskId = params.get("task_id") ?? "";
const payToken = params.get("pay_token") ?? "";
let lang =
  new URLSearchParams(location.search).get("lang") ??
  (navigator.language?.toLowerCase().startsWith("fr") ? "fr" : "en");
let view = null;
let problem = null;

const $ = (id) => document.getElementById(id);

const SHARED = { en: SHARED_EN, fr: SHARED_FR };

function t(key, vars = {}) {
  const text = MESSAGES[lang]?.[key] ?? SHARED[lang]?.[key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

function when(iso) {
  if (!iso) return "—";
  return new Intl.DateTimeFormat(lang === "fr" ? "fr-CA" : "en-CA", {
    dateStyle: "medium",
    timeStyle: "long",
    timeZone: "America/Toronto",
  }).format(new Date(iso));
}

function cad(amount) {
  return new Intl.NumberFormat(lang === "fr" ? "fr-CA" : "en-CA", {
    style: "currency",
    currency: "CAD",
  }).format(amount);
}

function cell(text, code = false) {
  const td = document.createElement("td");
  if (code) {
    const c = document.createElement("code");
    c.textContent = text;
    td.append(c);
  } else td.textContent = text;
  return td;
}

function fact(label, value) {
  const div = document.createElement("div");
  const dt = document.createElement("dt");
  dt.textContent = label;
  const dd = document.createElement("dd");
  dd.textContent = value;
  div.append(dt, dd);
  return div;
}

function render() {
  document.documentElement.lang = lang;
  $("lang-select").value = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  document.title = t("title");
  if (taskId) $("heading").textContent = t("heading", { task: taskId });
  $("status").textContent =
    problem ?? (view ? (view.awaiting_payment ? t("pay.waiting") : "") : t("loading"));
  $("sec-pay").hidden = !view?.awaiting_payment;
  $("sec-done").hidden = !view || view.awaiting_payment;
  if (!view) return;
  const payment = view.payment;
  if (view.awaiting_payment) {
    $("amount").textContent = `${payment.payment_usdc} USDC`;
    $("amount-cad").textContent = cad(payment.amount_cad);
    $("deadline").textContent = when(payment.expires_at);
    $("networks").replaceChildren(
      ...payment.networks.map((n) => {
        const tr = document.createElement("tr");
        tr.append(cell(`${n.network} (${n.chain_id})`), cell(n.wallet, true), cell(n.usdc_contract, true));
        return tr;
      }),
    );
    $("x402").hidden = !payment.x402_url;
    if (payment.x402_url) $("x402").textContent = t("pay.x402", { url: payment.x402_url });
  } else {
    $("done-title").textContent = payment.paid_at ? t("done.paid") : t("done.other");
    $("done-facts").replaceChildren(
      fact(t("done.status"), t(`status.${view.status}`)),
      ...(payment.paid_at ? [fact(t("done.paid_at"), when(payment.paid_at))] : []),
      ...(payment.tx_hash ? [fact(t("done.tx"), payment.tx_hash)] : []),
    );
  }
}

async function load() {
  try {
    const query = new URLSearchParams({ task_id: taskId, pay_token: payToken });
    const res = await fetch(`/api/task-pay?${query}`, { headers: { accept: "application/json" } });
    const data = await res.json().catch(() => ({}));
    if (res.status === 404 || res.status === 400) {
      problem = t("error.link");
      view = null;
      render();
      return;
    }
    if (!res.ok) throw new Error(data?.error?.message ?? res.statusText);
    view = data;
    problem = null;
  } catch (error) {
    problem = t("error.generic", { message: error.message });
  }
  render();
  if (!view || view.awaiting_payment) setTimeout(load, POLL_MS);
}

$("lang-select").addEventListener("change", (event) => {
  lang = event.target.value === "fr" ? "fr" : "en";
  render();
});

render();
if (!taskId || !payToken) {
  problem = t("error.link");
  render();
} else load();
