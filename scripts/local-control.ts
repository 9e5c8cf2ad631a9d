/**
 * The local control channel of `npm start` / `npm run dev`, and the development mail viewer.
 *
 * Control channel (`/_local/*`): lets host-side commands act through the running process, so
 * they work while it holds the embedded database's lock (`npm run admin:create-key`,
 * `npm run dev:pay`). The process writes `<DATA_DIR>/local-control.json` (mode 0600: pid, URL,
 * a random bearer token, the database it uses) and removes it when it stops. A request is
 * answered only from a loopback socket address with that token; anything else gets the ordinary
 * 404, so the channel is invisible from the network. Routes:
 * - `POST /_local/admin-keys` `{name, contact, scopes}` → 201, the created key (shown once).
 * - `POST /_local/staff` `{email, role, display_name}` → 201, the invited staff member with the
 *   invitation code and link (shown once; `npm run admin:create-staff`).
 * - `GET /_local/tasks/<id>` → the task's status, USDC amount (micro-USDC) and the configured
 *   payment networks with their RPC URLs (for `dev:pay`).
 * - `POST /_local/check-payments` → runs the payment checker once, now.
 *
 * Mail viewer (`/dev/mail`, development profile only, loopback socket and loopback Host only;
 * 404 otherwise): the outbox, newest first, each message with its full text (one-time codes
 * kept in memory from the moment the embedded outbox sent it, since the row loses them),
 * clickable links and its attachments (`/dev/mail/attachments/<proof_file_id>`).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { desc, eq } from "drizzle-orm";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { type Config, getConfig } from "../lib/config.js";
import { getDb } from "../lib/db/client.js";
import { ROLES, SCOPES } from "../lib/db/schema/enums.js";
import { emails, proofFiles, tasks } from "../lib/db/schema/index.js";
import { SOCKET_IP_HEADER } from "../lib/http/client-ip.js";
import { createApiKey } from "../lib/keys/create-api-key.js";
import { onOutboxMessage } from "../lib/mail/send-queued-emails.js";
import { networkConfigs } from "../lib/payments/networks.js";
import { inviteFromHost } from "../lib/staff/bootstrap.js";

/** What `<DATA_DIR>/local-control.json` holds. */
export interface ControlFile {
  pid: number;
  url: string;
  token: string;
  /** The database the process serves, described without credentials. */
  database: string;
}

/** Path of the control file of `config`, or undefined for an in-memory database. */
export function controlFilePath(config: Config = getConfig()): string | undefined {
  if (config.DATA_DIR === "memory://") return undefined;
  return path.join(path.resolve(config.DATA_DIR), "local-control.json");
}

/**
 * The control file of a live process for `config`, or undefined (none, unreadable, or its
 * process is gone).
 */
export function readControlFile(config: Config = getConfig()): ControlFile | undefined {
  const file = controlFilePath(config);
  if (!file) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as ControlFile;
    process.kill(parsed.pid, 0);
    return parsed;
  } catch {
    return undefined;
  }
}

/** The database `config` selects, without credentials: `PGlite in <dir>` or `PostgreSQL at host/db`. */
export function describeDatabase(config: Config = getConfig()): string {
  if (!config.DATABASE_URL || config.DATABASE_DRIVER === "pglite") {
    return config.DATA_DIR === "memory://"
      ? "embedded PGlite in memory"
      : `embedded PGlite in ${path.resolve(config.DATA_DIR, "pglite")}`;
  }
  try {
    const url = new URL(config.DATABASE_URL);
    return `PostgreSQL at ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
  } catch {
    return "PostgreSQL (unparsable DATABASE_URL)";
  }
}

function isLoopback(address: string | null | undefined): boolean {
  if (!address) return false;
  const h = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(h)) return false;
  let ip = ipaddr.parse(h);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === "loopback";
}

function isLoopbackHostHeader(host: string | null): boolean {
  if (!host) return false;
  const name = host.replace(/:\d+$/, "").toLowerCase();
  return name === "localhost" || isLoopback(name);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body, null, 2), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

const adminKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  contact: z.email().max(254),
  scopes: z.array(z.enum(SCOPES)).min(1),
});

/** The body of `POST /_local/staff` (and the arguments of `npm run admin:create-staff`). */
export const hostStaffBody = z.object({
  email: z.email().max(254),
  role: z.enum(ROLES),
  display_name: z.string().trim().min(1).max(60),
});

/** The host the channel serves on: its URL and its in-process call of one route (LocalHost). */
export interface ControlledHost {
  url: string;
  invoke(pathname: string, init?: RequestInit): Promise<Response>;
}

/**
 * The channel: `intercept` for the local host's option of that name, `attach` once the host
 * listens (writes the control file), `close` at shutdown (removes it).
 */
export interface LocalControl {
  intercept(request: Request): Promise<Response | undefined>;
  attach(host: ControlledHost): void;
  close(): void;
}

/** Most messages whose unredacted text the viewer keeps in memory. */
const KEPT_MESSAGES = 500;

/** Creates the channel (and, with `dev`, the viewer's capture of outbox messages). */
export function startLocalControl(options: { dev: boolean }): LocalControl {
  let host: ControlledHost | undefined;
  const config = getConfig();
  const token = randomBytes(24).toString("base64url");
  const expected = Buffer.from(`Bearer ${token}`);
  const file = controlFilePath(config);
  const fullText = new Map<string, string>();
  const unsubscribe = options.dev
    ? onOutboxMessage((email) => {
        fullText.set(email.id, email.textBody);
        if (fullText.size > KEPT_MESSAGES) fullText.delete(fullText.keys().next().value!);
      })
    : () => {};

  const authorized = (request: Request) => {
    const given = Buffer.from(request.headers.get("authorization") ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const control = async (request: Request, pathname: string): Promise<Response | undefined> => {
    if (request.method === "POST" && pathname === "/_local/admin-keys") {
      const parsed = adminKeyBody.safeParse(await request.json().catch(() => undefined));
      if (!parsed.success) {
        return json(400, { error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
      }
      const key = await createApiKey({ ...parsed.data, trusted: true, ip: "host" });
      return json(201, { ...key, database: describeDatabase(config) });
    }
    if (request.method === "POST" && pathname === "/_local/staff") {
      const parsed = hostStaffBody.safeParse(await request.json().catch(() => undefined));
      if (!parsed.success) {
        return json(400, { error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
      }
      try {
        const invited = await inviteFromHost({
          email: parsed.data.email,
          role: parsed.data.role,
          displayName: parsed.data.display_name,
        });
        return json(201, { ...invited, database: describeDatabase(config) });
      } catch (error) {
        return json(409, { error: error instanceof Error ? error.message : String(error) });
      }
    }
    const taskMatch = /^\/_local\/tasks\/([^/]+)$/.exec(pathname);
    if (request.method === "GET" && taskMatch) {
      const db = await getDb();
      const [task] = await db
        .select()
        .from(tasks)
        .where(eq(tasks.id, decodeURIComponent(taskMatch[1]!)));
      if (!task) return json(404, { error: "no such task" });
      return json(200, {
        task_id: task.id,
        status: task.status,
        payment_method: task.paymentMethod,
        payment_usdc_micro: task.paymentUsdcMicro?.toString() ?? null,
        paid_at: task.paidAt?.toISOString() ?? null,
        networks: networkConfigs().map((n) => ({
          network: n.name,
          chain_id: n.chainId,
          rpc_url: n.rpcUrl,
          usdc_contract: n.usdcContract,
          wallet: n.wallet,
        })),
      });
    }
    if (request.method === "POST" && pathname === "/_local/check-payments") {
      const secret = getConfig().CRON_SECRET;
      if (!host) return undefined;
      return host.invoke("/api/cron/check-payments", {
        headers: secret ? { authorization: `Bearer ${secret}` } : {},
      });
    }
    return undefined;
  };

  const mail = async (pathname: string): Promise<Response | undefined> => {
    const db = await getDb();
    if (pathname === "/dev/mail" || pathname === "/dev/mail/") {
      const rows = await db.select().from(emails).orderBy(desc(emails.createdAt)).limit(200);
      const html = mailPage(
        rows.map((r) => ({
          id: r.id,
          to: r.toAddress,
          subject: r.subject,
          lang: r.lang ?? "en",
          status: r.status,
          template: r.template,
          createdAt: r.createdAt.toISOString(),
          text: fullText.get(r.id) ?? r.textBody,
          attachments: r.attachments ?? [],
        })),
      );
      return new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    }
    const attachment = /^\/dev\/mail\/attachments\/([^/]+)$/.exec(pathname);
    if (attachment) {
      const [file] = await db
        .select({ content: proofFiles.content, type: proofFiles.mimeType, name: proofFiles.filename })
        .from(proofFiles)
        .where(eq(proofFiles.id, decodeURIComponent(attachment[1]!)));
      if (!file) return undefined;
      return new Response(Buffer.from(file.content), {
        headers: {
          "content-type": file.type,
          "content-disposition": `inline; filename="${file.name.replace(/[^\w.-]/g, "_")}"`,
        },
      });
    }
    return undefined;
  };

  return {
    async intercept(request) {
      const url = new URL(request.url);
      const fromLoopback = isLoopback(request.headers.get(SOCKET_IP_HEADER));
      if (url.pathname.startsWith("/_local/")) {
        if (!fromLoopback || !authorized(request)) return undefined;
        return control(request, url.pathname);
      }
      if (url.pathname === "/dev/mail" || url.pathname.startsWith("/dev/mail/")) {
        if (!options.dev || !fromLoopback || !isLoopbackHostHeader(request.headers.get("host"))) {
          return undefined;
        }
        if (request.method !== "GET" && request.method !== "HEAD") return undefined;
        return mail(url.pathname);
      }
      return undefined;
    },
    attach(running) {
      host = running;
      if (!file) return;
      mkdirSync(path.dirname(file), { recursive: true });
      const content: ControlFile = {
        pid: process.pid,
        url: running.url,
        token,
        database: describeDatabase(config),
      };
      writeFileSync(file, JSON.stringify(content), { mode: 0o600 });
    },
    close() {
      unsubscribe();
      if (!file) return;
      try {
        const current = JSON.parse(readFileSync(file, "utf8")) as ControlFile;
        if (current.pid === process.pid) rmSync(file);
      } catch {
        // already gone
      }
    },
  };
}

/** One message as the viewer shows it. */
interface ViewedMail {
  id: string;
  to: string;
  subject: string;
  lang: string;
  status: string;
  template: string | null;
  createdAt: string;
  text: string;
  attachments: { proof_file_id: string; filename: string; content_type: string }[];
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** Escapes `text` and turns every http(s) URL in it into a link. */
export function linkify(text: string): string {
  const parts = text.split(/(https?:\/\/[^\s<>"']+)/g);
  return parts
    .map((part, i) => {
      if (i % 2 === 0) return escapeHtml(part);
      const url = part.replace(/[).,;:]+$/, "");
      const tail = part.slice(url.length);
      return `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>${escapeHtml(tail)}`;
    })
    .join("");
}

/** The viewer page (no script, no inline style: the site's Content-Security-Policy holds). */
function mailPage(rows: ViewedMail[]): string {
  const items = rows
    .map(
      (m) => `<article id="${escapeHtml(m.id)}" lang="${escapeHtml(m.lang)}">
<h2>${escapeHtml(m.subject)}</h2>
<p><b>To / À :</b> ${escapeHtml(m.to)} · <b>Language / Langue :</b> ${escapeHtml(m.lang)} · <b>Status / État :</b> ${escapeHtml(m.status)} · ${escapeHtml(m.template ?? "")} · <time>${escapeHtml(m.createdAt)}</time> · <code>${escapeHtml(m.id)}</code></p>
<pre>${linkify(m.text)}</pre>
${
  m.attachments.length
    ? `<p><b>Attachments / Pièces jointes :</b> ${m.attachments
        .map(
          (a) =>
            `<a href="/dev/mail/attachments/${encodeURIComponent(a.proof_file_id)}">${escapeHtml(a.filename)}</a> (${escapeHtml(a.content_type)})`,
        )
        .join(", ")}</p>`
    : ""
}</article>`,
    )
    .join("\n<hr>\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Outbox / Boîte d'envoi — development</title></head>
<body><h1>Outbox / Boîte d'envoi</h1>
<p>Development only: the e-mails this server sent (embedded outbox), newest first. Reload for new ones.<br>
Développement seulement : les courriels envoyés par ce serveur, du plus récent au plus ancien.</p>
${rows.length ? items : "<p>No e-mail yet. / Aucun courriel pour l'instant.</p>"}
</body></html>`;
}
