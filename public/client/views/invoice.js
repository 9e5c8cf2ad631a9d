/**
 * An invoice of the client dashboard (#/invoice/<id>, GET /api/client-account?invoice_id=):
 * issuer, billed party, lines and total, with a print button (the print stylesheet hides the
 * page chrome).
 */
import { definitions, h } from "../../shared/dom.js";
import { heading } from "../../shared/views.js";
import { request } from "../api.js";
import { downloadButton } from "../context.js";
import { formatCad, formatDateTime, t } from "../i18n.js";

function addressLines(address) {
  return [
    address.line1,
    address.line2,
    [address.city, address.province, address.postal_code].filter(Boolean).join(" "),
  ].filter(Boolean);
}

/** Who issued the invoice and who it is billed to. */
function partiesBlock(invoice) {
  return h(
    "div",
    { class: "invoice-parties" },
    h(
      "address",
      { class: "panel" },
      h("h2", {}, t("invoice.from")),
      h("p", {}, invoice.issuer.name),
      h("p", {}, invoice.issuer.contact),
      h("p", {}, invoice.issuer.website),
    ),
    h(
      "address",
      { class: "panel" },
      h("h2", {}, t("invoice.bill_to")),
      invoice.bill_to.name ? h("p", {}, invoice.bill_to.name) : null,
      invoice.bill_to.company_name ? h("p", {}, invoice.bill_to.company_name) : null,
      invoice.bill_to.address ? addressLines(invoice.bill_to.address).map((line) => h("p", {}, line)) : null,
      h("p", {}, invoice.bill_to.email),
    ),
  );
}

/** The invoice lines (description, quantity, unit price, amount) and the total. */
function linesTable(invoice) {
  const lines = invoice.lines ?? [];
  return h(
    "table",
    { class: "breakdown invoice-lines" },
    h("caption", { class: "visually-hidden" }, t("invoice.lines")),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, t("col.description")),
        h("th", { scope: "col", class: "num" }, t("invoice.quantity")),
        h("th", { scope: "col", class: "num" }, t("invoice.unit")),
        h("th", { scope: "col", class: "num" }, t("col.amount")),
      ),
    ),
    h(
      "tbody",
      {},
      lines.map((line) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, line.description),
          h("td", {}, line.quantity ?? ""),
          h("td", {}, line.unit_cad === undefined ? "" : formatCad(line.unit_cad)),
          h("td", {}, formatCad(line.amount_cad)),
        ),
      ),
    ),
    h(
      "tfoot",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "row", colspan: "3" }, `${t("invoice.total")} (${invoice.currency})`),
        h("td", { id: "invoice-total" }, formatCad(invoice.total_cad)),
      ),
    ),
  );
}

/** The PDF download button of invoice `i` (GET …&format=pdf with the JWT, saved as `<number>.pdf`). */
export function invoicePdfButton(i, label = t("col.pdf")) {
  const name = i.number ?? i.invoice_id;
  return downloadButton(
    label,
    `/api/client-account?invoice_id=${encodeURIComponent(i.invoice_id)}&format=pdf`,
    `${name}.pdf`,
    { "aria-label": t("invoice.pdf_of", { n: name }), "data-invoice-pdf": i.invoice_id },
  );
}

/** #/invoice/<id>: one invoice, readable, printable and downloadable as PDF. */
export async function invoiceView(id) {
  const { invoice } = await request("GET", `/api/client-account?invoice_id=${encodeURIComponent(id)}`, {
    auth: true,
  });
  return h(
    "section",
    { class: "invoice" },
    h("p", { class: "no-print" }, h("a", { href: "#/dashboard" }, t("ctask.back"))),
    h(
      "div",
      { class: "view-head" },
      heading(t("invoice.title", { id: invoice.invoice_id })),
      h(
        "button",
        { type: "button", class: "button secondary no-print", onclick: () => window.print() },
        t("invoice.print"),
      ),
      h("span", { class: "no-print" }, invoicePdfButton(invoice, t("invoice.pdf"))),
    ),
    definitions([
      [t("invoice.issued"), formatDateTime(invoice.issued_at)],
      [t("invoice.kind"), t(`kind.${invoice.kind}`)],
      [t("invoice.number"), invoice.number],
      [t("invoice.network"), invoice.payment?.network ?? null],
      [t("invoice.tx"), invoice.payment?.tx_hash ?? null],
      [t("invoice.usdc"), invoice.payment?.amount_usdc ?? null],
      [
        t("invoice.rate"),
        invoice.payment?.exchange_rate_usd_per_cad == null
          ? null
          : `1 CAD = ${invoice.payment.exchange_rate_usd_per_cad} USDC`,
      ],
      [
        t("invoice.credits"),
        invoice.refers_to ? (invoice.refers_to.number ?? invoice.refers_to.invoice_id) : null,
      ],
      [
        t("invoice.task"),
        invoice.task_id
          ? h("a", { href: `#/task/${encodeURIComponent(invoice.task_id)}` }, invoice.task_id)
          : null,
      ],
    ]),
    partiesBlock(invoice),
    linesTable(invoice),
  );
}
