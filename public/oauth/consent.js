/**
 * The consent step of MCP authorization (/oauth/consent?uid=…, reached from /oauth/interaction/{uid}):
 * shows which client asks for which scopes on which account, signs the account owner in with the
 * client login (POST /api/client-auth; the JWT stays in this page's memory), and sends the answer
 * (POST /oauth/interaction/{uid}/decision), then follows the server's redirect back to the client.
 * English and French, like the dashboard.
 */
const MESSAGES = {
  en: {
    title: "Connect an assistant",
    language: "Language",
    "login.title": "Sign in to your client account",
    "login.intro": "{client} wants to act on your account. Sign in to review the request.",
    "login.email": "E-mail",
    "login.password": "Password",
    "login.submit": "Sign in",
    "consent.title": "{client} asks for access to your account",
    "consent.account": "Account: {email}",
    "consent.client_id": "Client identifier (its name is its own claim; check this address): {id}",
    "consent.resource": "Service: {resource}",
    "consent.approve": "Approve",
    "consent.deny": "Deny",
    "consent.revoke_hint": "You can revoke this access at any time in the client dashboard, under API keys.",
    "scope.task_create": "Submit tasks billed to this account",
    "scope.task_cancel": "Cancel the tasks it submitted",
    "scope.billing_read": "Read the account's balance and billing",
    "scope.audit_only": "Read its tasks and their status",
    "error.expired":
      "This request has expired or was opened in another browser. Start again from the assistant.",
    "error.login": "Sign-in failed: {message}",
    "error.generic": "Something went wrong: {message}",
    working: "Please wait…",
  },
  fr: {
    title: "Connecter un assistant",
    language: "Langue",
    "login.title": "Connectez-vous à votre compte client",
    "login.intro": "{client} veut agir sur votre compte. Connectez-vous pour examiner la demande.",
    "login.email": "Courriel",
    "login.password": "Mot de passe",
    "login.submit": "Se connecter",
    "consent.title": "{client} demande l'accès à votre compte",
    "consent.account": "Compte : {email}",
    "consent.client_id": "Identifiant du client (son nom est déclaré par lui; vérifiez cette adresse) : {id}",
    "consent.resource": "Service : {resource}",
    "consent.approve": "Autoriser",
    "consent.deny": "Refuser",
    "consent.revoke_hint":
      "Vous pouvez révoquer cet accès en tout temps dans le tableau de bord client, sous Clés d'API.",
    "scope.task_create": "Soumettre des tâches facturées à ce compte",
    "scope.task_cancel": "Annuler les tâches qu'il a soumises",
    "scope.billing_read": "Lire le solde et la facturation du compte",
    "scope.audit_only": "Lire ses tâches et leur statut",
    "error.expired":
      "Cette demande a expiré ou a été ouverte dans un autre navigateur. Recommencez depuis l'assistant.",
    "error.login": "La connexion a échoué : {message}",
    "error.generic": "Une erreur est survenue : {message}",
    working: "Veuillez patienter…",
  },
};

const params = new URLSearchParams(location.search);
const uid = params.get("uid") ?? "";
let lang = params.get("lang") ?? (navigator.language?.toLowerCase().startsWith("fr") ? "fr" : "en");
let details = null;
let session = null;

const $ = (id) => document.getElementById(id);

function t(key, vars = {}) {
  const text = MESSAGES[lang]?.[key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

function say(text) {
  $("status").textContent = text;
}

function clientName() {
  return details?.client.client_name ?? details?.client.client_id ?? "";
}

function render() {
  document.documentElement.lang = lang;
  $("lang-select").value = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  document.title = t("title");
  if (!details) return;
  $("login-intro").textContent = t("login.intro", { client: clientName() });
  $("sec-login").hidden = Boolean(session);
  $("sec-consent").hidden = !session;
  if (session) {
    $("consent-title").textContent = t("consent.title", { client: clientName() });
    $("consent-account").textContent = t("consent.account", { email: session.email });
    $("consent-client").textContent = t("consent.client_id", { id: details.client.client_id });
    $("consent-resource").textContent = t("consent.resource", { resource: details.resource });
    $("consent-scopes").replaceChildren(
      ...details.scopes.map((scope) => {
        const li = document.createElement("li");
        li.textContent = `${t(`scope.${scope}`)} (${scope})`;
        return li;
      }),
    );
  }
}

async function json(method, path, body, token) {
  const headers = { accept: "application/json" };
  if (body) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data?.error?.message ?? res.statusText), { status: res.status });
  return data;
}

async function decide(decision) {
  say(t("working"));
  for (const b of document.querySelectorAll("button")) b.disabled = true;
  try {
    const answer = await json(
      "POST",
      `/oauth/interaction/${encodeURIComponent(uid)}/decision`,
      { decision },
      session?.token,
    );
    location.assign(answer.redirect_to);
  } catch (error) {
    for (const b of document.querySelectorAll("button")) b.disabled = false;
    say(error.status === 404 ? t("error.expired") : t("error.generic", { message: error.message }));
  }
}

$("lang-select").addEventListener("change", (event) => {
  lang = event.target.value === "fr" ? "fr" : "en";
  render();
});
$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const email = $("email").value.trim();
  say(t("working"));
  try {
    const answer = await json("POST", "/api/client-auth?action=login", {
      email,
      password: $("password").value,
    });
    session = { token: answer.token, email };
    $("password").value = "";
    say("");
    render();
    $("approve").focus();
  } catch (error) {
    say(t("error.login", { message: error.message }));
  }
});
$("approve").addEventListener("click", () => decide("approve"));
$("deny").addEventListener("click", () => decide("deny"));
$("deny-early").addEventListener("click", () => decide("deny"));

render();
json("GET", `/oauth/interaction/${encodeURIComponent(uid)}/details`)
  .then((view) => {
    details = view;
    render();
    $("email").focus();
  })
  .catch((error) =>
    say(error.status === 404 ? t("error.expired") : t("error.generic", { message: error.message })),
  );
