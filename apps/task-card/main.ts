/**
 * The task card (MCP App; docs/mcp.md "In the conversation"): three views over the results of our
 * tools, drawn with plain DOM (no framework, no innerHTML, no inline handlers):
 * - Estimate (`get_estimate`, `list_services`): the breakdown in CAD, the zone, and a form whose
 *   Submit asks for a confirmation before calling `submit_task` through the host.
 * - Task (`submit_task`, `check_task_status`, `pay_task`, `dispute_task`, `task_card_refresh`):
 *   timeline, payment (Pay opens the pay page through `ui/open-link`; refused → the URL to copy),
 *   assignee, site visit with an SVG sketch and an OpenStreetMap link, proof photos read with
 *   `resources/read` as data URLs, the receipt check, the SLA terms, Dispute. Polls
 *   `task_card_refresh` at the task's `_polling.next_poll_seconds` while it is open and visible.
 * - Error: an `isError` result's envelope in words, with its details.
 * Every call goes through the host (which holds the user's authorization); the card keeps no
 * credential beyond a keyless task's access_token that the host handed it in the tool result.
 */
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import { cad, type Key, type Lang, langOf, when, words } from "./i18n.js";

type Json = Record<string, unknown>;
type Child = Node | string | null | undefined | false;

const root = document.getElementById("app")!;
let lang: Lang = langOf(navigator.language);
let t = words(lang);
let timeZone: string | undefined;
let lastRender: (() => void) | undefined;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let current: { taskId: string; accessToken?: string } | undefined;
const photoCache = new Map<string, string>();

/** An element with attributes (`on*` functions become listeners) and children (text is escaped). */
function h(tag: string, attrs: Record<string, unknown> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function")
      el.addEventListener(name.slice(2), value as EventListener);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
function s(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text) el.textContent = text;
  return el;
}

/** Replaces the card's content with `children` (false and null skipped). */
function fill(...children: Child[]): void {
  root.replaceChildren(...children.filter((c): c is Node | string => Boolean(c)));
}

function row(label: string, value: Child): HTMLElement {
  return h("div", { class: "row" }, h("dt", {}, label), h("dd", {}, value));
}

function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", {}, h("h2", {}, title), ...children);
}

function show(render: () => void): void {
  lastRender = render;
  render();
}

/** What the card told the model so far (the host keeps only the last update: each one repeats them). */
const told: string[] = [];
/** The last status seen of each task, to tell the model of a change. */
const seenStatus = new Map<string, string>();

/**
 * Tells the model what the person did in the card or saw change (`ui/update-model-context`; the
 * host adds it to the model's context on the next turn, without prompting it), when the host
 * accepts context updates. Plain English for the model; `data` is the last event, machine-readable.
 */
function tellModel(line: string, data: Json): void {
  if (!app.getHostCapabilities()?.updateModelContext) return;
  told.push(line);
  if (told.length > 5) told.shift();
  void app
    .updateModelContext({
      content: [{ type: "text", text: `Task card (what the person did or saw):\n- ${told.join("\n- ")}` }],
      structuredContent: data,
    })
    .catch(() => undefined);
}

const app = new App({ name: "physical-tasks-task-card", version: "1.0.0" }, {}, { autoResize: true });

/** Applies the host's locale, theme, style variables and fonts. */
function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.locale) {
    lang = langOf(ctx.locale);
    t = words(lang);
    document.documentElement.lang = lang;
  }
  if (ctx.timeZone) timeZone = ctx.timeZone;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  document.documentElement.dataset.mode = ctx.displayMode ?? "inline";
}

/** A "full screen" toggle when the host offers that mode. */
function displayModeButton(): Child {
  const ctx = app.getHostContext();
  if (!ctx?.availableDisplayModes?.includes("fullscreen")) return null;
  const full = ctx.displayMode === "fullscreen";
  return h(
    "button",
    {
      type: "button",
      class: "ghost",
      onclick: async () => {
        const result = await app
          .requestDisplayMode({ mode: full ? "inline" : "fullscreen" })
          .catch(() => null);
        if (result) document.documentElement.dataset.mode = result.mode;
        lastRender?.();
      },
    },
    full ? t("inline") : t("fullscreen"),
  );
}

function header(title: string, badge?: Child): HTMLElement {
  return h("header", {}, h("h1", {}, title), badge, displayModeButton());
}

// ---------------------------------------------------------------- Error

/** The error view of an `isError` result (its envelope in `_meta.error`, else its text). */
function renderError(result: Json): void {
  const meta = (result._meta ?? {}) as { error?: Json; request_id?: string };
  const error = meta.error ?? {};
  const text = ((result.content as { type: string; text?: string }[] | undefined) ?? []).find(
    (c) => c.type === "text",
  )?.text;
  const details = Array.isArray(error.details) ? (error.details as unknown[]) : [];
  fill(
    header(t("error")),
    h(
      "div",
      { class: "error", role: "alert" },
      h("p", {}, h("strong", {}, String(error.code ?? "ERROR")), " — ", String(error.message ?? text ?? "")),
      h("h2", {}, t("whatNext")),
      h(
        "ul",
        {},
        h(
          "li",
          {},
          t(`next.${String(error.code)}`).startsWith("next.")
            ? t("next.default")
            : t(`next.${String(error.code)}`),
        ),
        ...details.map((d) => {
          const item = d as Json;
          const line =
            typeof d === "string"
              ? d
              : [item.field ?? item.path, item.message ?? item.issue ?? item.hint]
                  .filter(Boolean)
                  .join(": ") || JSON.stringify(d);
          return h("li", {}, String(line));
        }),
      ),
      typeof error.retry_after_seconds === "number" &&
        h("p", {}, `Retry-After: ${error.retry_after_seconds} s`),
      meta.request_id && h("p", { class: "muted" }, `request_id ${meta.request_id}`),
    ),
  );
}

// ---------------------------------------------------------------- Estimate

function renderEstimate(est: Json): void {
  const b = (est.breakdown ?? {}) as Record<string, number>;
  const loc = (est.location ?? {}) as Json;
  const usd = (est.usd ?? {}) as Json;
  const urgent = (b.urgency_multiplier ?? 1) > 1;
  show(() => {
    fill(
      header(t("estimate"), h("span", { class: "badge" }, urgent ? t("urgent") : t("standard"))),
      h(
        "p",
        { class: "total" },
        h("span", {}, t("total")),
        h("strong", { "data-testid": "total" }, cad(Number(est.total_cad), lang)),
      ),
      typeof est.total_with_taxes_cad === "number" &&
        row(t("totalTaxes"), cad(est.total_with_taxes_cad, lang)),
      h(
        "dl",
        {},
        row(
          t("zone"),
          `${String(loc.matched ?? "")} — ${loc.in_service_zone ? `✓ ${t("inZone")}` : `✗ ${t("outZone")}`}`,
        ),
        row(t("baseFee"), cad(b.base_fee ?? 0, lang)),
        row(t("siteCost"), `${b.site_hours ?? 0} h — ${cad(b.site_cost ?? 0, lang)}`),
        row(
          t("travel"),
          `${b.km_roundtrip ?? 0} km — ${cad((b.km_cost ?? 0) + (b.transport_cost ?? 0), lang)}`,
        ),
        row(t("urgency"), `× ${b.urgency_multiplier ?? 1}`),
        typeof usd.estimated_usdc === "number" && row(t("usdc"), `${usd.estimated_usdc} USDC`),
      ),
      submitForm(String(loc.query ?? loc.matched ?? ""), urgent ? "urgent" : "standard"),
    );
  });
}

function renderServices(list: Json): void {
  const services = (list.services ?? []) as Json[];
  show(() => {
    fill(
      header(t("services")),
      h(
        "ul",
        { class: "services" },
        ...services.map((svc) =>
          h(
            "li",
            {},
            h("strong", {}, `${String(svc.id)} — ${String(svc.name ?? svc.title ?? "")}`),
            h("p", {}, String(svc.description ?? "")),
            svc.price_range_cad ? h("p", { class: "muted" }, JSON.stringify(svc.price_range_cad)) : null,
          ),
        ),
      ),
    );
  });
}

/** The submit form: Submit asks, Confirm calls `submit_task` through the host. */
function submitForm(address: string, urgency: string): HTMLElement {
  // Not a <form>: a host's sandbox (allow-scripts only) blocks form submission before any submit event.
  const form = h("div", { class: "form", role: "group", "aria-label": t("submit") });
  const field = (key: Key, input: HTMLElement) => h("label", {}, h("span", {}, t(key)), input);
  const service = h(
    "select",
    { name: "service_type" },
    ...["SVC-01", "SVC-02", "SVC-03", "SVC-04", "SVC-05"].map((id) => h("option", { value: id }, id)),
  );
  const addr = h("input", {
    name: "location_address",
    value: address,
    required: true,
    autocomplete: "street-address",
  });
  const desc = h("textarea", { name: "task_description", required: true, rows: 2 });
  const contact = h("input", {
    name: "requester_contact",
    type: "email",
    required: true,
    autocomplete: "email",
  });
  // The speed: standard, or urgent (the total × the urgency multiplier shown above).
  const speed = h(
    "select",
    { name: "urgency" },
    h("option", { value: "standard", selected: urgency === "standard" }, t("standardDeadline")),
    h("option", { value: "urgent", selected: urgency === "urgent" }, t("urgentDeadline")),
  );
  // What the chosen service includes: its catalog entry, read through the host (list_services).
  const includes = h("div", { class: "includes", "data-testid": "includes", "aria-live": "polite" });
  const describeService = async () => {
    const id = (service as HTMLSelectElement).value;
    const result = (await app
      .callServerTool({ name: "list_services", arguments: { id, include_contract: false } })
      .catch(() => null)) as Json | null;
    const entry = ((result?.structuredContent as Json | undefined)?.services as Json[] | undefined)?.[0];
    if (!entry || (service as HTMLSelectElement).value !== id) return;
    includes.replaceChildren(
      h("strong", {}, `${t("includes")} — ${String(entry.name ?? id)}`),
      h("p", { class: "muted" }, String(entry.description ?? "")),
      h("ul", {}, ...((entry.deliverables ?? []) as string[]).map((d) => h("li", {}, String(d)))),
    );
  };
  service.addEventListener("change", () => void describeService());
  void describeService();
  const sandbox = h("input", { name: "sandbox", type: "checkbox", checked: true });
  const status = h("p", { class: "confirm", role: "status" });
  const submit = h("button", { type: "button", class: "primary" }, t("submit"));
  form.append(
    field("service", service),
    includes,
    field("address", addr),
    field("description", desc),
    field("contact", contact),
    field("urgency", speed),
    h("label", { class: "check" }, sandbox, h("span", {}, t("sandbox"))),
    submit,
    status,
  );
  submit.addEventListener("click", () => {
    const args: Json = {
      service_type: (service as HTMLSelectElement).value,
      location_address: (addr as HTMLInputElement).value,
      task_description: (desc as HTMLTextAreaElement).value,
      requester_contact: (contact as HTMLInputElement).value,
      urgency: (speed as HTMLSelectElement).value,
      sandbox: (sandbox as HTMLInputElement).checked,
    };
    const confirm = h("button", { type: "button", "data-testid": "confirm-submit" }, t("confirmSubmit"));
    const cancel = h("button", { type: "button", class: "ghost" }, t("cancel"));
    confirm.addEventListener("click", async () => {
      confirm.setAttribute("disabled", "");
      const result = (await app.callServerTool({ name: "submit_task", arguments: args })) as Json;
      const made = result.structuredContent as Json | undefined;
      if (!result.isError && typeof made?.task_id === "string")
        tellModel(
          `The person confirmed and submitted task ${made.task_id} (${String(args.service_type)}, ${
            args.sandbox ? "sandbox" : "real"
          }) at ${String(args.location_address)}.`,
          { event: "submitted", task_id: made.task_id, status: made.status ?? null },
        );
      onResult(result);
    });
    cancel.addEventListener("click", () => status.replaceChildren());
    status.replaceChildren(
      `${t("confirmAsk")} ${String(args.location_address)} ?`,
      " ",
      confirm,
      " ",
      cancel,
    );
    confirm.focus();
  });
  return form;
}

// ---------------------------------------------------------------- Task

const TERMINAL = new Set(["completed", "failed", "rejected", "cancelled", "payment_expired"]);
const FLOW = ["received", "accepted_pending_payment", "paid", "dispatched", "on_site", "completed"];

function timeline(task: Json): HTMLElement {
  const history = (task.history ?? []) as { status: string; at: string }[];
  const reached = new Map(history.map((e) => [e.status, e.at]));
  const steps = [...FLOW];
  if (reached.has("counter_offered")) steps.splice(1, 0, "counter_offered");
  const status = String(task.status);
  if (!FLOW.includes(status) && status !== "counter_offered") steps.push(status);
  return h(
    "ol",
    { class: "timeline" },
    ...steps.map((step) => {
      const at = reached.get(step);
      const state = step === status ? "current" : at ? "done" : "todo";
      return h(
        "li",
        { class: state, "aria-current": state === "current" ? "step" : undefined },
        h(
          "span",
          { class: "dot", "aria-hidden": "true" },
          state === "done" ? "✓" : state === "current" ? "●" : "○",
        ),
        h("span", {}, t(`status.${step}`)),
        h("time", {}, at ? when(at, lang, timeZone) : ""),
      );
    }),
  );
}

/**
 * The counter-offer (status `counter_offered`, the caller's own task): Accept opens the pay page
 * through the host (paying the counter-offered amount is what accepts it), Refuse calls
 * `cancel_task` through the host; each asks the person first, nothing happens on one click.
 */
function counterOfferBlock(task: Json, payUrl: string | null): Child {
  if (String(task.status) !== "counter_offered" || !task.owned_by_caller) return null;
  const amount = typeof task.counter_offer_amount === "number" ? cad(task.counter_offer_amount, lang) : "";
  const ask = h("p", { class: "confirm", role: "status" });
  const fallback = h("p", { class: "copy", hidden: true });
  const confirmStep = (question: string, testId: string, act: () => Promise<void>) => {
    const yes = h("button", { type: "button", class: "primary", "data-testid": testId }, t("confirm"));
    const no = h("button", { type: "button", class: "ghost" }, t("cancel"));
    yes.addEventListener("click", async () => {
      yes.setAttribute("disabled", "");
      await act();
    });
    no.addEventListener("click", () => ask.replaceChildren());
    ask.replaceChildren(question, " ", yes, " ", no);
    yes.focus();
  };
  const accept = h(
    "button",
    { type: "button", class: "primary", "data-testid": "counter-accept" },
    t("counterAccept"),
  );
  const refuse = h("button", { type: "button", "data-testid": "counter-refuse" }, t("counterRefuse"));
  accept.addEventListener("click", () =>
    confirmStep(`${t("counterAcceptAsk")} ${amount} ?`, "counter-accept-confirm", async () => {
      const url = payUrl ?? (task.x402 ? String((task.x402 as Json).url) : null);
      if (!url) return;
      await openOrCopy(url, fallback, task, `accept the counter-offer of ${amount} by paying it`);
      ask.replaceChildren();
    }),
  );
  refuse.addEventListener("click", () =>
    confirmStep(t("counterRefuseAsk"), "counter-refuse-confirm", async () => {
      const result = (await app.callServerTool({
        name: "cancel_task",
        arguments: {
          task_id: String(task.task_id),
          reason: t("counterRefuseReason"),
          ...(current?.accessToken ? { access_token: current.accessToken } : {}),
        },
      })) as Json;
      if (result.isError) renderError(result);
      else {
        tellModel(`The person refused the counter-offer on task ${String(task.task_id)}; it is cancelled.`, {
          event: "counter_offer_refused",
          task_id: task.task_id,
        });
        void refresh();
      }
    }),
  );
  return section(
    t("counterOffer"),
    h("dl", {}, row(t("payAmount"), amount)),
    task.review_reason ? h("p", { class: "muted" }, String(task.review_reason)) : null,
    h("p", {}, accept, " ", refuse),
    ask,
    fallback,
  );
}

/**
 * Opens `url` (the task's pay page) through the host (`ui/open-link`) and tells the model; a host
 * that refuses → the address shown in `fallback`, to copy.
 */
async function openOrCopy(url: string, fallback: HTMLElement, task: Json, purpose: string): Promise<void> {
  const result = await app.openLink({ url }).catch(() => ({ isError: true }));
  const opened = !result?.isError;
  if (!opened) {
    fallback.replaceChildren(
      t("payCopy"),
      h("input", { readonly: true, value: url, "aria-label": t("pay") }),
    );
    fallback.hidden = false;
  }
  tellModel(
    opened
      ? `The person opened the pay page of task ${String(task.task_id)} to ${purpose}.`
      : `The host did not open the pay page of task ${String(task.task_id)}; the card shows its address to copy.`,
    { event: opened ? "pay_page_opened" : "pay_page_refused", task_id: task.task_id },
  );
}

/** The pay block: the exact amount, Pay through `ui/open-link`, the URL to copy when refused. */
function payBlock(task: Json, payUrl: string | null): Child {
  const payment = task.payment as Json | undefined;
  if (!payUrl && !task.x402) return null;
  // The caller's counter-offer has its own block (Accept opens the same pay page).
  if (String(task.status) === "counter_offered" && task.owned_by_caller) return null;
  const amount = payment?.payment_usdc ? `${String(payment.payment_usdc)} USDC` : "";
  const cadAmount =
    typeof task.total_with_taxes_cad === "number" ? task.total_with_taxes_cad : payment?.amount_cad;
  const fallback = h("p", { class: "copy", hidden: true });
  const pay = h("button", { type: "button", class: "primary", "data-testid": "pay" }, t("pay"));
  pay.addEventListener("click", () =>
    openOrCopy(payUrl ?? String((task.x402 as Json).url), fallback, task, "pay it"),
  );
  return section(
    t("pay"),
    h(
      "dl",
      {},
      row(
        t("payAmount"),
        `${cadAmount !== undefined ? cad(Number(cadAmount), lang) : ""} ${amount ? `(${amount})` : ""}`,
      ),
    ),
    task.x402 ? h("p", { class: "muted" }, `x402: pay_task — ${String((task.x402 as Json).url)}`) : null,
    pay,
    fallback,
  );
}

/** A sketch of the site visit: the site at the centre, the check-in distance as a ring (no tiles). */
function siteMap(visit: Json, coordinates: [number, number] | null): HTMLElement {
  const distance = typeof visit.check_in_distance_m === "number" ? visit.check_in_distance_m : null;
  const accuracy = Number(visit.accuracy_m ?? 0);
  const extent = Math.max(50, (distance ?? 0) + accuracy) * 1.25;
  const scale = 90 / extent;
  const svg = s("svg", {
    viewBox: "0 0 200 200",
    width: 200,
    height: 200,
    role: "img",
    "aria-label": t("map"),
  });
  svg.append(s("title", {}, t("map")));
  svg.append(s("rect", { x: 0, y: 0, width: 200, height: 200, class: "map-bg" }));
  if (distance !== null) {
    svg.append(
      s("circle", { cx: 100, cy: 100, r: Math.max(2, (distance + accuracy) * scale), class: "map-acc" }),
    );
    svg.append(s("circle", { cx: 100, cy: 100, r: Math.max(1, distance * scale), class: "map-ring" }));
    svg.append(
      s(
        "text",
        { x: 100, y: Math.max(12, 100 - distance * scale - 4), "text-anchor": "middle", class: "map-label" },
        `${Math.round(distance)} m`,
      ),
    );
  }
  svg.append(s("circle", { cx: 100, cy: 100, r: 5, class: "map-site" }));
  const children: Child[] = [svg];
  if (coordinates) {
    const [lon, lat] = coordinates;
    const url = `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`;
    const link = h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, t("osm"));
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      await app.openLink({ url }).catch(() => undefined);
    });
    children.push(h("p", {}, link, h("span", { class: "muted" }, ` ${lat.toFixed(5)}, ${lon.toFixed(5)}`)));
  }
  return h("figure", { class: "map" }, ...children);
}

function siteVisitBlock(task: Json): Child {
  const visit = task.site_visit as Json | null | undefined;
  if (!visit) return null;
  const location = (task.location ?? {}) as Json;
  const coords = Array.isArray(location.coordinates) ? (location.coordinates as [number, number]) : null;
  return section(
    t("siteVisit"),
    h(
      "dl",
      {},
      row(t("checkIn"), when(String(visit.checked_in_at), lang, timeZone)),
      row(
        t("distance"),
        visit.check_in_distance_m === null ? "—" : `${Math.round(Number(visit.check_in_distance_m))} m`,
      ),
      row(t("accuracy"), `± ${Math.round(Number(visit.accuracy_m))} m`),
      row("", visit.within_geofence ? `✓ ${t("geofenceIn")}` : `✗ ${t("geofenceOut")}`),
      visit.reason ? row(t("reason"), String(visit.reason)) : null,
    ),
    siteMap(visit, coords),
  );
}

/**
 * The capture time and place of a proof file (its `capture` metadata, lib/receipts/capture.ts):
 * "Taken <time>" and "At <lat>, <lon> — <km> from the site"; said in words when the file has neither.
 */
function captureLine(capture: Json | null | undefined): Child {
  const gps = capture?.gps as { latitude?: number; longitude?: number } | undefined;
  const at = typeof capture?.captured_at === "string" ? capture.captured_at : null;
  const place =
    typeof gps?.latitude === "number" && typeof gps.longitude === "number"
      ? `${gps.latitude.toFixed(5)}, ${gps.longitude.toFixed(5)}${
          typeof capture?.distance_km === "number" ? ` — ${capture.distance_km} km ${t("fromSite")}` : ""
        }`
      : null;
  return h(
    "span",
    { class: "muted capture", "data-testid": "capture" },
    at && h("span", {}, `${t("captured")} ${when(at, lang, timeZone)}`),
    place && h("span", {}, `${t("takenAt")} ${place}`),
    !at && !place && t("noCapture"),
  );
}

/** One proof file: the photo as a data URL from `resources/read`, its hash; a failure keeps the hash and offers a retry. */
function proofItem(file: Json): HTMLElement {
  const uri = String(file.uri);
  const figure = h("figure", { class: "photo" });
  const caption = h(
    "figcaption",
    {},
    h("span", {}, String(file.filename ?? "")),
    h("code", { title: t("sha") }, `${t("sha")} ${String(file.sha256)}`),
    captureLine(file.capture as Json | null | undefined),
  );
  const load = async () => {
    const cached = photoCache.get(uri);
    let src = cached;
    if (!src) {
      try {
        const read = await app.readServerResource({
          uri,
          ...(current?.accessToken ? { access_token: current.accessToken } : {}),
        } as { uri: string });
        const content = read.contents[0] as { blob?: string; mimeType?: string } | undefined;
        if (!content?.blob) throw new Error("no blob");
        src = `data:${content.mimeType ?? file.mime_type};base64,${content.blob}`;
        photoCache.set(uri, src);
      } catch {
        const retry = h("button", { type: "button", class: "ghost" }, t("retry"));
        retry.addEventListener("click", () => void load());
        figure.replaceChildren(
          h("div", { class: "broken", role: "note" }, t("loadFailed"), " ", retry),
          caption,
        );
        return;
      }
    }
    const isImage = String(file.mime_type ?? "").startsWith("image/");
    figure.replaceChildren(
      isImage
        ? h("img", { src, alt: String(file.filename ?? ""), width: 160, height: 120 })
        : h("div", { class: "file" }, String(file.mime_type)),
      caption,
    );
  };
  figure.replaceChildren(h("div", { class: "placeholder" }, "…"), caption);
  void load();
  return figure;
}

/**
 * The proof photos: those that exist (a task under way lists what the field person has uploaded
 * so far) and, while the task is open, a tile saying the rest are arriving.
 */
function photosBlock(task: Json): Child {
  const files = (task.proof_files ?? []) as Json[];
  const status = String(task.status);
  if (files.length === 0 && !["on_site", "dispatched"].includes(status)) return null;
  return section(
    t("photos"),
    h(
      "div",
      { class: "photos" },
      ...files.map(proofItem),
      !TERMINAL.has(status) &&
        h(
          "figure",
          { class: "photo", "data-testid": "arriving" },
          h("div", { class: "placeholder arriving" }, `${t("arriving")}…`),
          h("figcaption", { class: "muted" }, t("arrivingNote")),
        ),
    ),
  );
}

function receiptBlock(check: Json | null): Child {
  if (!check) return null;
  return section(
    t("receipt"),
    h(
      "p",
      { class: check.valid ? "ok" : "bad", "data-testid": "receipt" },
      check.valid ? `✓ ${t("receiptValid")}` : `✗ ${t("receiptInvalid")}: ${String(check.error ?? "")}`,
    ),
    check.valid === true &&
      h(
        "dl",
        {},
        row("kid", h("code", {}, String(check.kid))),
        row(t("status"), t(`status.${String(check.status)}`)),
        check.proof_matches !== null &&
          row(t("photos"), check.proof_matches ? `✓ ${t("proofMatches")}` : `✗ ${t("proofDiffers")}`),
      ),
    check.sandbox === true && h("p", { class: "muted" }, t("receiptSandbox")),
  );
}

function slaBlock(task: Json): Child {
  const sla = task.sla as Json | undefined;
  if (!sla) return null;
  return section(
    t("sla"),
    h(
      "dl",
      {},
      row(t("deadline"), when(String(sla.execution_deadline), lang, timeZone)),
      row(t("slaCredit"), `${String(sla.credit_percent_per_day)} %`),
      row(t("slaCap"), `${String(sla.cap_percent)} %`),
      typeof sla.credited_cad === "number" && row(t("credited"), cad(sla.credited_cad, lang)),
    ),
  );
}

const REASONS = ["not_done", "incomplete", "wrong_location", "damaged", "late", "other"];

/** Dispute: reason, note, one optional evidence photo; `dispute_task` through the host. */
function disputeBlock(task: Json): Child {
  const dispute = task.dispute as Json | undefined;
  if (dispute)
    return section(
      t("disputeOpen"),
      h(
        "p",
        { "data-testid": "dispute" },
        `${t(`dispute.${String(dispute.status)}`)} — ${t(`reason.${String(dispute.reason)}`)}`,
      ),
    );
  if (!task.owned_by_caller || !["completed", "failed"].includes(String(task.status))) return null;
  const form = h("div", { class: "form", role: "group", "aria-label": t("dispute") });
  const reason = h(
    "select",
    { name: "reason" },
    ...REASONS.map((r) => h("option", { value: r }, t(`reason.${r}`))),
  );
  const note = h("textarea", { name: "details", required: true, rows: 2 });
  const evidence = h("input", { name: "evidence", type: "file", accept: "image/jpeg,image/png" });
  const send = h("button", { type: "button", class: "primary" }, t("disputeSend"));
  form.append(
    h("label", {}, h("span", {}, t("disputeReason")), reason),
    h("label", {}, h("span", {}, t("disputeNote")), note),
    h("label", {}, h("span", {}, t("disputeEvidence")), evidence),
    send,
  );
  send.addEventListener("click", async () => {
    const file = (evidence as HTMLInputElement).files?.[0];
    const evidenceFiles = file
      ? [{ filename: file.name, type: file.type, content: await base64(file) }]
      : undefined;
    const result = (await app.callServerTool({
      name: "dispute_task",
      arguments: {
        task_id: String(task.task_id),
        reason: (reason as HTMLSelectElement).value,
        details: (note as HTMLTextAreaElement).value,
        ...(evidenceFiles ? { evidence_files: evidenceFiles } : {}),
        ...(current?.accessToken ? { access_token: current.accessToken } : {}),
      },
    })) as Json;
    if (!result.isError)
      tellModel(
        `The person opened a dispute on task ${String(task.task_id)} (reason: ${
          (reason as HTMLSelectElement).value
        }): "${(note as HTMLTextAreaElement).value}".`,
        { event: "dispute_opened", task_id: task.task_id, reason: (reason as HTMLSelectElement).value },
      );
    onResult(result);
  });
  return h("details", {}, h("summary", {}, t("dispute")), form);
}

async function base64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function renderTask(task: Json, receiptCheck: Json | null, payUrl: string | null): void {
  const status = String(task.status);
  const id = String(task.task_id);
  const before = seenStatus.get(id);
  seenStatus.set(id, status);
  if (before && before !== status)
    tellModel(`Task ${id} is now ${status} (was ${before}).`, {
      event: "status_changed",
      task_id: id,
      status,
      previous_status: before,
    });
  const assignment = task.assignment as Json | null | undefined;
  show(() => {
    fill(
      header(
        `${t("task")} ${String(task.task_id)}`,
        h("span", { class: `badge s-${status}`, "data-testid": "status" }, t(`status.${status}`)),
      ),
      task.sandbox ? h("p", { class: "muted" }, t("sandbox")) : null,
      timeline(task),
      h(
        "dl",
        {},
        task.location_address ? row(t("address"), String(task.location_address)) : null,
        row(t("deadline"), when(String(task.execution_deadline), lang, timeZone)),
        assignment ? row(t("assignee"), String(assignment.operator_display_name)) : null,
        typeof task.counter_offer_amount === "number"
          ? row(t("counterOffer"), cad(task.counter_offer_amount, lang))
          : null,
      ),
      counterOfferBlock(task, payUrl),
      payBlock(task, payUrl),
      siteVisitBlock(task),
      photosBlock(task),
      receiptBlock(receiptCheck),
      slaBlock(task),
      disputeBlock(task),
      TERMINAL.has(status) ? h("p", { class: "muted" }, t("stopped")) : null,
    );
  });
  schedule(task);
}

/** Polls at the task's advice while it is open and the card visible. */
function schedule(task: Json): void {
  if (pollTimer) clearTimeout(pollTimer);
  pollTimer = undefined;
  const polling = task._polling as { next_poll_seconds?: number; is_terminal?: boolean } | undefined;
  if (!current || polling?.is_terminal || TERMINAL.has(String(task.status))) return;
  if (document.visibilityState === "hidden") return;
  const seconds = Math.min(3600, Math.max(1, Number(polling?.next_poll_seconds ?? 30)));
  pollTimer = setTimeout(() => void refresh(), seconds * 1000);
}

async function refresh(): Promise<void> {
  if (!current) return;
  const result = (await app
    .callServerTool({
      name: "task_card_refresh",
      arguments: {
        task_id: current.taskId,
        ...(current.accessToken ? { access_token: current.accessToken } : {}),
      },
    })
    .catch((error: unknown) => ({
      isError: true,
      content: [{ type: "text", text: String(error) }],
    }))) as Json;
  onResult(result);
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && current && !pollTimer) void refresh();
  if (document.visibilityState === "hidden" && pollTimer) {
    clearTimeout(pollTimer);
    pollTimer = undefined;
  }
});

// ---------------------------------------------------------------- Dispatch

/**
 * The task an MCP task result names: a handle or `tasks/get` result of the Tasks extension
 * (revision 2026-07-28: `resultType` "task" or "complete", `taskId`, a keyless task's
 * `_meta.access_token`) or of MCP Tasks (2025-11-25: `{ task: { taskId } }`, or the task itself).
 * The MCP task id is the service task id (docs/mcp.md).
 */
function taskOfMcpTask(result: Json): { taskId: string; accessToken?: string } | undefined {
  const handle = (typeof result.taskId === "string" ? result : result.task) as Json | undefined;
  if (typeof handle?.taskId !== "string") return undefined;
  const token = (result._meta as Json | undefined)?.access_token;
  return { taskId: handle.taskId, ...(typeof token === "string" ? { accessToken: token } : {}) };
}

/**
 * Chooses the view of a tool result by its shape; an MCP task result (a handle, `tasks/get`) opens
 * the Task view of its task, read with `task_card_refresh`.
 */
function onResult(result: Json): void {
  const mcpTask = taskOfMcpTask(result);
  if (mcpTask) {
    current = { ...mcpTask, accessToken: mcpTask.accessToken ?? current?.accessToken };
    void refresh();
    return;
  }
  if (result.isError) {
    renderError(result);
    return;
  }
  const data = (result.structuredContent ?? {}) as Json;
  if (data.task && typeof data.task === "object" && "receipt_check" in data) {
    const task = data.task as Json;
    current = { ...current, taskId: String(task.task_id) };
    renderTask(task, (data.receipt_check as Json | null) ?? null, (data.pay_url as string | null) ?? null);
    return;
  }
  if (typeof data.task_id === "string") {
    current = {
      taskId: data.task_id,
      accessToken: typeof data.access_token === "string" ? data.access_token : current?.accessToken,
    };
    void refresh();
    return;
  }
  if (typeof data.total_cad === "number") {
    renderEstimate(data);
    return;
  }
  if (Array.isArray(data.services)) renderServices(data);
}

app.ontoolresult = (params) => onResult(params as unknown as Json);
app.onhostcontextchanged = (ctx) => {
  applyContext(ctx as McpUiHostContext);
  lastRender?.();
};
app.onteardown = async () => {
  if (pollTimer) clearTimeout(pollTimer);
  return {};
};

fill(h("p", { class: "muted" }, t("loading")));
await app.connect();
applyContext(app.getHostContext());
const opened = document.querySelector<HTMLMetaElement>('meta[name="task-id"]')?.content;
if (opened) {
  current = { taskId: opened };
  void refresh();
} else {
  fill(h("p", { class: "muted" }, t("loading")));
}
