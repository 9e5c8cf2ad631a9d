/**
 * Verifiable work in the operator console (issue 17), self-contained: the policy screen's outcome
 * (reason codes and matched rules highlighted; an approval of a `review` task is recorded as an
 * override), and each proof file's size, SHA-256 and capture metadata (time, GPS distance from the
 * task's place, inside the execution window or not: flagged, never blocking), plus the receipt.
 * Strings live here (English and French) so the page's main modules stay untouched.
 */

import { definitions, h } from "../shared/dom.js";
import { badge } from "../shared/views.js";
import { formatBytes, formatDateTime, getLang } from "./i18n.js";

const STRINGS = {
  en: {
    policy: "Policy screen",
    outcome: "Outcome",
    review: "Review: check before approving",
    allow: "Allowed",
    codes: "Reason codes",
    rules: "Matched rules",
    overridden: "Approved by the operator despite the screen",
    version: "Rules version",
    verifiable: "Proof integrity",
    receipt: "Signed receipt (JWS)",
    captured: "Captured",
    distance: "km from the task's place",
    no_capture: "no capture metadata",
    outside: "outside the dispatch–completion window",
    far: "far from the task's place",
  },
  fr: {
    policy: "Filtre de politique",
    outcome: "Résultat",
    review: "À examiner avant d'approuver",
    allow: "Accepté",
    codes: "Codes de motif",
    rules: "Règles déclenchées",
    overridden: "Approuvée par l'opérateur malgré le filtre",
    version: "Version des règles",
    verifiable: "Intégrité des preuves",
    receipt: "Reçu signé (JWS)",
    captured: "Prise le",
    distance: "km du lieu de la tâche",
    no_capture: "aucune métadonnée de prise de vue",
    outside: "hors de la fenêtre envoi–fin",
    far: "loin du lieu de la tâche",
  },
};

const s = (key) => (STRINGS[getLang()] ?? STRINGS.en)[key];

/** A badge for a task card or page head when the screen sent the task to review (else null). */
export function policyBadge(task) {
  if (task.policy?.outcome !== "review") return null;
  const codes = task.policy.reason_codes.join(", ");
  return badge(task.policy.override ? `${s("overridden")}: ${codes}` : `${s("review")}: ${codes}`, "warn");
}

/** The policy panel of a task page (null for tasks screened before the screen existed). */
export function policySection(task) {
  const p = task.policy;
  if (!p) return null;
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sec-policy" },
    h("h2", { id: "sec-policy" }, s("policy")),
    definitions([
      [s("outcome"), p.outcome === "review" ? badge(s("review"), "warn") : s("allow")],
      [s("codes"), p.reason_codes.length ? h("strong", {}, p.reason_codes.join(", ")) : null],
      [
        s("rules"),
        p.matches?.length
          ? h(
              "ul",
              { class: "plain" },
              p.matches.map((m) => h("li", {}, h("code", {}, m.rule_id), " ", h("mark", {}, m.matched_text))),
            )
          : null,
      ],
      [
        s("overridden"),
        p.override
          ? `${formatDateTime(p.override.at)}${p.override.operator_notes ? ` — ${p.override.operator_notes}` : ""}`
          : null,
      ],
      [s("version"), p.version],
    ]),
  );
}

function captureLine(capture) {
  if (!capture?.captured_at && !capture?.gps) return h("span", { class: "muted" }, s("no_capture"));
  const parts = capture.captured_at ? [`${s("captured")} ${formatDateTime(capture.captured_at)}`] : [];
  if (typeof capture.distance_km === "number") parts.push(`${capture.distance_km} ${s("distance")}`);
  return h(
    "span",
    {},
    parts.join(" · "),
    capture.within_execution_window === false ? [" ", badge(s("outside"), "warn")] : null,
    capture.flags?.includes("FAR_FROM_LOCATION") ? [" ", badge(s("far"), "warn")] : null,
  );
}

/** The proof integrity panel: each file's size, SHA-256 and capture metadata, and the receipt. */
export function verifiableSection(task) {
  const files = task.proof_files ?? [];
  if (!files.length && !task.receipt) return null;
  return h(
    "section",
    { class: "panel", "aria-labelledby": "sec-verifiable" },
    h("h2", { id: "sec-verifiable" }, s("verifiable")),
    h(
      "ul",
      { class: "plain" },
      files.map((f) =>
        h(
          "li",
          {},
          h("strong", {}, f.filename),
          ` · ${f.type} · ${formatBytes(f.size)} · `,
          h("code", {}, f.sha256),
          h("br"),
          captureLine(f.capture),
        ),
      ),
    ),
    task.receipt ? definitions([[s("receipt"), h("code", { class: "prewrap" }, task.receipt)]]) : null,
  );
}
