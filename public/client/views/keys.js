/**
 * The API keys of a client account (#/keys, GET/POST /api/account-keys): the keys linked to the
 * account (they bill it and read it) with unlink and revoke (an OAuth client's key: revoke only), a new key (shown once, never stored) and
 * linking an existing key by pasting it in full.
 */
import { field, h } from "../../shared/dom.js";
import { heading, table } from "../../shared/views.js";
import { ApiError, request } from "../api.js";
import { apiForm, messages, render, section, value } from "../context.js";
import { formatDateTime, t } from "../i18n.js";

const { announce, errorBox, showError } = messages;

/** The full key created a moment ago, shown once above the list (never stored anywhere). */
let freshKey = null;

/** #/keys: the linked keys (unlink, revoke), a new key (shown once), link an existing key. */
export async function keysView() {
  const { keys } = await request("GET", "/api/account-keys", { auth: true });
  const shown = freshKey;
  freshKey = null;
  const created = shown
    ? section(
        "sec-new-key",
        t("keys.created_title", { name: shown.name }),
        h("p", { class: "notice" }, t("keys.created_once")),
        h("p", {}, h("code", { id: "new-key", class: "secret" }, shown.api_key)),
      )
    : null;

  const act = (key, action) => async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      await request("POST", "/api/account-keys", {
        auth: true,
        body: { action, key_id: key.key_id },
      });
      announce(t(action === "revoke" ? "keys.revoked" : "keys.unlinked", { name: key.name }));
      render({ focus: false });
    } catch (e) {
      button.disabled = false;
      showError(listError, e);
    }
  };
  const listError = errorBox();
  const list = section(
    "sec-keys",
    t("keys.linked"),
    h("p", {}, t("keys.linked_intro")),
    listError,
    keys.length
      ? table(
          t("keys.linked"),
          [
            t("keys.col.name"),
            t("keys.col.key"),
            t("keys.col.scopes"),
            t("keys.col.created"),
            t("keys.col.last_used"),
            "",
          ],
          keys.map((key) => [
            key.oauth_client_id
              ? h(
                  "span",
                  {},
                  key.name,
                  h("br"),
                  h("small", {}, t("keys.oauth", { client: key.oauth_client_id })),
                )
              : key.name,
            h("code", { class: "key-hint" }, `…${key.key_hint}`),
            key.scopes.join(", "),
            formatDateTime(key.created_at),
            key.last_used_at ? formatDateTime(key.last_used_at) : t("app.none"),
            h(
              "span",
              { class: "key-actions" },
              // An OAuth client's key is not unlinked (it would go on working): its authorization is revoked.
              key.oauth_client_id
                ? null
                : h(
                    "button",
                    {
                      type: "button",
                      class: "button secondary small key-action",
                      "aria-label": t("keys.unlink_named", { name: key.name }),
                      onclick: act(key, "unlink"),
                    },
                    t("keys.unlink"),
                  ),
              h(
                "button",
                {
                  type: "button",
                  class: "button secondary small key-action",
                  "aria-label": t("keys.revoke_named", { name: key.name }),
                  onclick: act(key, "revoke"),
                },
                t("keys.revoke"),
              ),
            ),
          ]),
        )
      : h("p", { class: "empty" }, t("keys.none")),
  );

  const createForm = apiForm({
    title: h("h2", {}, t("keys.create_title")),
    intro: t("keys.create_intro"),
    fields: [
      field(t("keys.name"), "input", { name: "name", required: true, maxlength: "100", autocomplete: "off" }),
    ],
    submit: t("keys.create_submit"),
    path: "/api/account-keys",
    auth: true,
    build: (form) => ({ action: "create", name: value(form, "name") }),
    done: (answer) => {
      freshKey = { name: answer.name, api_key: answer.api_key };
      announce(t("keys.created_title", { name: answer.name }));
      render();
    },
  });

  const linkForm = apiForm({
    title: h("h2", {}, t("keys.link_title")),
    intro: t("keys.link_intro"),
    fields: [
      field(t("keys.paste"), "input", {
        name: "api_key",
        type: "password",
        required: true,
        maxlength: "200",
        autocomplete: "off",
        autocapitalize: "off",
        spellcheck: "false",
      }),
    ],
    submit: t("keys.link_submit"),
    path: "/api/account-keys",
    auth: true,
    build: (form) => ({ action: "link", api_key: value(form, "api_key") }),
    done: (answer, form) => {
      form.elements.namedItem("api_key").value = "";
      announce(t("keys.linked_done", { name: answer.key.name }));
      render({ focus: false });
    },
    explain: (e) => {
      if (e instanceof ApiError && e.status === 404) return t("keys.link_unknown");
      if (e instanceof ApiError && e.status === 409) return t("keys.link_elsewhere");
      return null;
    },
  });

  return h("section", {}, heading(t("keys.title")), created, list, createForm, linkForm);
}
