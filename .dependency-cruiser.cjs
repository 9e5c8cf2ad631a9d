/**
 * Dependency rules of the service (dependency-cruiser), checked by `npm run deps` inside `npm test`.
 *
 * The layers, lowest first (docs/architecture.md has the diagram and the reasons):
 *   base      lib/db, lib/config.ts (and lib/config/), lib/ids.ts, lib/money.ts, lib/errors.ts, lib/validation.ts, lib/log-error.ts, lib/taxes.ts, lib/geo, lib/net, lib/policy, lib/receipts: storage, settings, ids,
 *             reference data (zone, places, tax rates), outbound-URL safety
 *   state     the task state layer, lib/tasks/state: transition table, applyTransition/batch, deadlines,
 *             records of payment and execution, the task vocabulary (schemas)
 *   services  domain services: the service catalog, billing, payments, notifications (events, webhooks, mail, stream),
 *             accounts, keys, auth, pricing, scores, analytics, activity, idempotency, rate limits,
 *             and the public view of a task (lib/tasks/task-view.ts, task-advice.ts)
 *   workflows the rest of lib/tasks (submit, review, cancel, settle refund, sandbox, reads), lib/field and lib/jobs
 *   adapters  lib/http, lib/mcp, lib/openapi, lib/system and every lib/<domain>/operations.ts (the
 *             operation descriptors the HTTP wrapper, /openapi.json and MCP are built from), and
 *             lib/descriptors (the descriptor type they are written with)
 *   entry     api/ (one file per endpoint) and scripts/
 * A module may import its own layer and the layers below it, never a higher one. public/ (the static
 * pages) is separate from all of them. Peers within a layer may import each other as long as no two
 * lib folders import each other (no-circular-lib-folders).
 *
 * Today's code breaks several rules: those breaks are listed in .dependency-cruiser-known-violations.json
 * (the baseline) and ignored by `--ignore-known`; anything not in it fails the build. When a change
 * removes a known violation, regenerate the baseline with `npm run deps:baseline` so it only shrinks.
 *
 * A new lib folder (or a new file directly under lib/) must be given a layer below, or
 * `lib-module-has-a-layer` fails.
 */

/** Joins path patterns into one alternation. */
const any = (...patterns) => `(${patterns.join("|")})`;

/** The descriptor files of every domain folder belong to the adapters. */
const OPERATIONS = "^lib/[^/]+/operations\\.ts$";

/** After a folder: any file of it but its operations.ts (which is an adapter). */
const NOT_OPS = "(?!operations\\.ts$)";

const LAYERS = {
  db: "^lib/db/",
  base: any(
    "^lib/db/",
    // The configuration: lib/config.ts, the one import path, and its parts in lib/config/.
    "^lib/config(\\.ts$|/)",
    "^lib/ids\\.ts$",
    // A Map of bounded size for memoizing pure mappings (places, rate-limit subjects).
    "^lib/bounded-cache\\.ts$",
    // ipaddr.js loaded on first use, for the configuration and the rate limiter.
    "^lib/ip-address\\.ts$",
    // One money module (cents, micro-USDC, rounding) and the domain error type: pure, used by all.
    "^lib/money\\.ts$",
    // Quebec sales taxes (rates with effective dates, per-invoice rounding): pure, beside money.
    "^lib/taxes\\.ts$",
    "^lib/errors\\.ts$",
    // Text produced piece by piece as a byte stream (streamed JSON answers): no import of ours.
    "^lib/text-stream\\.ts$",
    // Roles and permissions: one data table read by the wrapper, the descriptors and discovery.
    "^lib/permissions\\.ts$",
    // Input validation (zod issues → domain error codes, NUL bytes, query numbers) for schemas of every layer.
    "^lib/validation\\.ts$",
    // Error descriptions for logs (codes, SQL state, never parameter values).
    "^lib/log-error\\.ts$",
    `^lib/(geo|net)/${NOT_OPS}`,
    // The policy screen (rules data, pure matching, a refusal counter) and completion receipts
    // (signing keys from configuration, pure signing): rules and records the state layer uses.
    `^lib/(policy|receipts)/${NOT_OPS}`,
  ),
  // The task state layer has its own folder, so a service that calls it and is called by a
  // workflow of lib/tasks does not make lib/tasks and that service's folder a folder cycle.
  state: "^lib/tasks/state/",
  services: any(
    `^lib/(accounts|activity|analytics|audit|auth|billing|catalog|events|exports|idempotency|keys|mail|oauth|payments|pricing|privacy|push|ratelimit|scores|staff|stream|webhooks)/${NOT_OPS}`,
    // The public view of a task, shared by the workflows, e-mail, webhooks and the event stream,
    // and the advice it carries (next poll, recommended action, ownership), which MCP reads alone.
    "^lib/tasks/task-(view|advice)\\.ts$",
  ),
  // lib/field: assignment, site visits, field proof uploads and the deadline watch (issue 26).
  workflows: `^lib/(tasks|jobs|field)/${NOT_OPS}`,
  // lib/descriptors: the descriptor type and the public error-code table the operations.ts files
  // are written with; it imports only the base layer, so no domain folder imports lib/http.
  adapters: any(OPERATIONS, "^lib/(descriptors|http|mcp|openapi|system)/"),
  entry: "^(api|scripts)/",
};

/** Everything of ours the layers speak of (third-party packages and node: built-ins are free to use). */
const OURS = "^(lib|api|scripts)/";

/**
 * A rule forbidding `from` (minus `fromNot`) to import any of our modules outside `allowed`.
 * Operation descriptors live in domain folders but are adapters, hence the `fromNot` default.
 */
function onlyDown(name, comment, from, allowed, fromNot = OPERATIONS) {
  return {
    name,
    comment,
    severity: "error",
    from: { path: from, pathNot: fromNot },
    to: { path: OURS, pathNot: allowed },
  };
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No file may import itself through a chain of imports (type-only imports count).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-lib-folders",
      comment: "No two lib folders may import each other, directly or through other folders.",
      severity: "error",
      scope: "folder",
      from: { path: "^lib/" },
      to: { circular: true },
    },
    onlyDown(
      "db-imports-no-domain",
      "lib/db (schema, client) imports only itself, the configuration (lib/config.ts, lib/config/), lib/ids.ts and lib/log-error.ts: storage knows nothing of the domain.",
      LAYERS.db,
      any(LAYERS.db, "^lib/config(\\.ts$|/)", "^lib/ids\\.ts$", "^lib/log-error\\.ts$"),
    ),
    onlyDown(
      "base-imports-only-base",
      "The base layer (db, config, ids, money, errors, geo, net) imports nothing above it.",
      LAYERS.base,
      LAYERS.base,
      any(OPERATIONS, LAYERS.db),
    ),
    onlyDown(
      "state-imports-only-state-and-base",
      "The task state layer imports only itself and the base layer: no service, workflow or adapter.",
      LAYERS.state,
      any(LAYERS.state, LAYERS.base),
    ),
    onlyDown(
      "services-import-no-workflow-or-adapter",
      "Domain services (billing, payments, notifications...) may call the task state layer, never a workflow or an adapter.",
      LAYERS.services,
      any(LAYERS.services, LAYERS.state, LAYERS.base),
    ),
    onlyDown(
      "workflows-import-no-adapter",
      "Workflows (submit, review, cancel, refund, sandbox, jobs) raise domain errors; only adapters know HTTP and MCP.",
      LAYERS.workflows,
      any(LAYERS.workflows, LAYERS.services, LAYERS.state, LAYERS.base),
      any(OPERATIONS, LAYERS.state, LAYERS.services),
    ),
    onlyDown(
      "lib-imports-no-entry-point",
      "Nothing in lib/ imports an endpoint file (api/) or a script (scripts/).",
      "^lib/",
      "^lib/",
      "^$",
    ),
    {
      name: "public-is-separate",
      comment: "The static pages (public/) import only each other.",
      severity: "error",
      from: { path: "^public/" },
      to: { pathNot: "^public/" },
    },
    {
      name: "nothing-imports-public",
      comment: "Server code never imports the static pages.",
      severity: "error",
      from: { pathNot: "^public/" },
      to: { path: "^public/" },
    },
    {
      name: "lib-module-has-a-layer",
      comment:
        "Every lib module belongs to a layer: give a new lib folder (or lib/*.ts file) its layer in .dependency-cruiser.cjs.",
      severity: "error",
      from: {},
      to: {
        path: "^lib/",
        pathNot: any(LAYERS.base, LAYERS.state, LAYERS.services, LAYERS.workflows, LAYERS.adapters),
      },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing package.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^node_modules/", "^public/vendor/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
