/**
 * The task card, our MCP App (the `io.modelcontextprotocol/ui` extension, SEP-1865; docs/mcp.md
 * "In the conversation"): one HTML resource that a host renders in a sandboxed iframe beside the
 * results of the tools that name it, served by both protocol stacks from here.
 *
 * - The resource `ui://physical-tasks/task-card.html` ({@link TASK_CARD_URI}), MIME type
 *   `text/html;profile=mcp-app`, is the built app (apps/task-card, `npm run app:build`), one
 *   self-contained HTML file. Its `_meta.ui.csp` allows no network origin at all: the app talks
 *   only to its host (postMessage); photos come as data URLs from `resources/read`, and the receipt
 *   is verified by the app-only tool `task_card_refresh` (docs/decisions.md 43).
 * - `ui://physical-tasks/task/{task_id}` is the same card opened on one task: readable only by
 *   whoever may read the task's proof files (owner, admin key, its access_token); to anyone else
 *   -32002 "Resource not found", exactly as for a task id that does not exist.
 * - Tools that show the card carry `_meta.ui.resourceUri` (and the older flat key `ui/resourceUri`
 *   that hosts of the first extension drafts read); `task_card_refresh` is `visibility: ["app"]`.
 * - Listing (the extension's rule): revision 2025-11-25 always lists the resource and its
 *   template; 2026-07-28 lists them, and the app-only tool, only to a client that declares the
 *   extension in its per-request capabilities. A client without the extension gets exactly the
 *   tool results it got before (text + `structuredContent`): the card adds nothing to results.
 */
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";

/** The extension's identifier in `capabilities.extensions`. */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
/** The MIME type of an MCP App resource. */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The flat `_meta` key of the extension's first drafts, still read by some hosts. */
export const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri";
/** The card's resource. */
export const TASK_CARD_URI = "ui://physical-tasks/task-card.html";
/** The card opened on one task. */
export const TASK_CARD_TASK_TEMPLATE = "ui://physical-tasks/task/{task_id}";

/** The tools whose results the card shows (the others keep plain results). */
export const CARD_TOOLS = new Set([
  "list_services",
  "get_estimate",
  "submit_task",
  "check_task_status",
  "pay_task",
  "dispute_task",
  "cancel_task",
  "task_card_refresh",
]);

/** The tools only the card calls (`visibility: ["app"]`), never listed to a client without the extension. */
export const APP_ONLY_TOOLS = new Set(["task_card_refresh"]);

/** Whether `capabilities` declare the MCP Apps extension. */
export function declaresUiExtension(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return Boolean(extensions && typeof extensions === "object" && UI_EXTENSION in extensions);
}

/** The `_meta` of tool `name` in tools/list: the card's URI (both keys) and, for the app's helper, its visibility. */
export function uiToolMeta(name: string): Record<string, unknown> | undefined {
  if (!CARD_TOOLS.has(name)) return undefined;
  return {
    ui: {
      resourceUri: TASK_CARD_URI,
      ...(APP_ONLY_TOOLS.has(name) ? { visibility: ["app"] } : {}),
    },
    [LEGACY_RESOURCE_URI_KEY]: TASK_CARD_URI,
  };
}

/** The card's `_meta.ui` (on the resource listing and on the read contents). */
const RESOURCE_UI_META = {
  ui: {
    // Nothing but the host: no fetch, no remote image, script or font (docs/decisions.md 43).
    csp: { connectDomains: [] as string[], resourceDomains: [] as string[] },
    prefersBorder: true,
  },
};

/** The resources/list entry of the card. */
export const TASK_CARD_RESOURCE = {
  uri: TASK_CARD_URI,
  name: "task-card",
  title: "Task card",
  description:
    "The task card shown in the conversation by hosts that render MCP Apps: estimate, task timeline, " +
    "site visit, proof photos, receipt check, payment and dispute.",
  mimeType: APP_MIME_TYPE,
  _meta: RESOURCE_UI_META,
};

/** The resource template of the card opened on one task. */
export const TASK_CARD_TEMPLATE = {
  uriTemplate: TASK_CARD_TASK_TEMPLATE,
  name: "task-card-of-task",
  title: "Task card of one task",
  description:
    "The task card opened on task {task_id}: readable by whoever may read the task (its owner's key, an " +
    "admin key, or its access_token in params.access_token).",
  mimeType: APP_MIME_TYPE,
};

/** What a `ui://` URI names: the card, the card of one task, or nothing of ours. */
export type AppUri = { kind: "card" } | { kind: "task"; taskId: string };

/** Parses `uri` as one of the card's URIs; undefined for anything else. */
export function parseAppUri(uri: string): AppUri | undefined {
  if (uri === TASK_CARD_URI) return { kind: "card" };
  const match = /^ui:\/\/physical-tasks\/task\/([^/?#]{1,192})$/.exec(uri);
  if (!match) return undefined;
  try {
    const taskId = decodeURIComponent(match[1]!);
    return taskId.length <= 64 ? { kind: "task", taskId } : undefined;
  } catch {
    return undefined;
  }
}

/** The HTML-escaped `value`, for an attribute. */
function attribute(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * The resources/read contents of the card at `uri`, opened on `taskId` when given (a
 * `<meta name="task-id">` the app reads at start; the task's access was checked by the caller).
 */
export async function taskCardContents(uri: string, taskId?: string) {
  // Loaded on a read only: the bundle is ~300 kB of text (cold start, docs/performance.md).
  const { TASK_CARD_HTML } = await import("./bundle.generated.js");
  const html =
    taskId === undefined
      ? TASK_CARD_HTML
      : TASK_CARD_HTML.replace("<head>", `<head><meta name="task-id" content="${attribute(taskId)}">`);
  return [{ uri, mimeType: APP_MIME_TYPE, text: html, _meta: RESOURCE_UI_META }];
}
