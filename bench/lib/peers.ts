/**
 * Peer servers for the `http` benchmark: Hono 4 on `@hono/node-server`, once answering a fixed
 * JSON body (the adapter's own cost) and once serving an estimate-like route of comparable work
 * (query validated with zod, accent-folded place lookup, a pricing formula, JSON with a request
 * id). They show what a maintained Web-standard stack keeps of bare `node:http` on this machine.
 * A third route, `/response`, does no work and answers a given response (the service's own estimate
 * answer: its headers and body, a fresh request id each time): the cost of sending what the
 * contract requires, on the same adapter.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { z } from "zod";
import type { RunningServer } from "./bare-server.js";

const FIXED = { ok: true, service: "hono", note: "fixed body" };

/** Known places: accent-folded name → one-way distance in km from Montréal (rounded). */
const PLACES = new Map<string, { name: string; km: number; lat: number; lon: number }>(
  [
    { name: "Montréal", km: 0, lat: 45.5017, lon: -73.5673 },
    { name: "Laval", km: 18, lat: 45.5369, lon: -73.5107 },
    { name: "Longueuil", km: 9, lat: 45.5312, lon: -73.5181 },
    { name: "Québec", km: 253, lat: 46.8139, lon: -71.208 },
    { name: "Gatineau", km: 205, lat: 45.4765, lon: -75.7013 },
    { name: "Sherbrooke", km: 155, lat: 45.4042, lon: -71.8929 },
    { name: "Trois-Rivières", km: 142, lat: 46.3432, lon: -72.5432 },
    { name: "Saint-Jérôme", km: 55, lat: 45.7804, lon: -74.0036 },
  ].map((p) => [fold(p.name), p]),
);

function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

const estimateQuery = z.object({
  hours: z.coerce.number().min(1).max(12),
  location: z.string().trim().min(1).max(512),
  urgency: z.enum(["standard", "rush", "emergency"]).default("standard"),
});

const URGENCY = { standard: 1, rush: 1.25, emergency: 1.5 } as const;

/**
 * The estimate-like route's work, shared by the Hono + zod peer and the equal-work peer: the query
 * validated with zod (hours 1–12, a location, an urgency), the place looked up accent-folded, the
 * price computed (labour CAD 65/h for at least 2 h, travel CAD 45/h at 80 km/h both ways, urgency
 * factor).
 * @param query the request's query parameters
 * @param requestId the id echoed in the body
 * @returns the status (200; 400 invalid query; 422 unknown place) and the JSON body
 */
export function estimateAnswer(
  query: Record<string, string>,
  requestId: string,
): { status: 200 | 400 | 422; body: Record<string, unknown> } {
  const parsed = estimateQuery.safeParse(query);
  if (!parsed.success) {
    return {
      status: 400,
      body: { error: { code: "VALIDATION_ERROR", details: parsed.error.issues }, request_id: requestId },
    };
  }
  const place = PLACES.get(fold(parsed.data.location));
  if (!place) return { status: 422, body: { error: { code: "LOCATION_NOT_FOUND" }, request_id: requestId } };
  const travelHours = (place.km * 2) / 80;
  const labour = Math.max(2, parsed.data.hours) * 65;
  const travel = Math.round(travelHours * 45 * 100) / 100;
  const subtotal = (labour + travel) * URGENCY[parsed.data.urgency];
  const total = Math.round(subtotal * 100) / 100;
  return {
    status: 200,
    body: {
      currency: "CAD",
      total_cad: total,
      breakdown: { labour_cad: labour, travel_cad: travel, urgency: parsed.data.urgency },
      location: { query: parsed.data.location, matched: place.name, coordinates: [place.lon, place.lat] },
      request_id: requestId,
    },
  };
}

/** A response the `/response` route repeats: status, headers (lowercase names) and body text. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The Hono peer; `respondWith` sets what `GET /response` answers (until set: 404). */
export interface HonoPeer extends RunningServer {
  respondWith(response: RecordedResponse): void;
}

/**
 * Starts the Hono peer on 127.0.0.1, port 0: `GET /` fixed JSON, `GET /estimate` the estimate-like
 * route, `GET /response` the recorded response (one plain header record, a new `x-request-id`).
 */
export async function startHonoPeer(): Promise<HonoPeer> {
  const app = new Hono();
  let recorded: RecordedResponse | undefined;
  app.get("/response", () => {
    if (!recorded) return new Response(null, { status: 404 });
    const headers = { ...recorded.headers };
    if ("x-request-id" in headers)
      headers["x-request-id"] = `req_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
    return new Response(recorded.body, { status: recorded.status, headers });
  });
  app.get("/", (c) => c.json(FIXED));
  app.get("/estimate", (c) => {
    const requestId = randomUUID();
    const answer = estimateAnswer(c.req.query(), requestId);
    return c.json(answer.body, answer.status, { "x-request-id": requestId });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    respondWith(response) {
      recorded = response;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as import("node:http").Server).closeAllConnections();
      }),
  };
}
