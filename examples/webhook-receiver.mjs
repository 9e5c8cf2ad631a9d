// A webhook receiver that verifies the service's signatures (Node 20+, no dependencies).
//
//   WEBHOOK_SECRET=whsec_... PORT=8787 node examples/webhook-receiver.mjs
//
// Register it with POST /api/webhooks {"url": "http://127.0.0.1:8787/hook", "events": [...]}
// (http:// and loopback URLs need ALLOW_PRIVATE_CALLBACKS=true, which `npm run dev` turns on);
// the answer holds the whsec_ secret, shown once. Each delivery carries
//   X-Service-Timestamp: <unix seconds>
//   X-Service-Signature: sha256=<hex of HMAC-SHA256(secret, "<timestamp>.<raw body>")>
// The receiver recomputes the HMAC over the raw bytes (before parsing JSON), compares in constant
// time, refuses timestamps more than 5 minutes away, answers 204 quickly and only then works.
// Refused deliveries get 401 (the service retries them; fix the secret, they then pass).
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("Set WEBHOOK_SECRET to the whsec_ secret returned when the webhook was registered");
  process.exit(1);
}
const TOLERANCE_SECONDS = 300;

/** Whether `signature` is the service's signature of `raw` at `timestamp`. */
export function verify(raw, timestamp, signature) {
  if (!/^\d{1,12}$/.test(timestamp ?? "")) return "bad timestamp";
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return "stale timestamp";
  const match = /^sha256=([0-9a-f]{64})$/.exec(signature ?? "");
  if (!match) return "malformed signature";
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(raw).digest();
  const given = Buffer.from(match[1], "hex");
  return timingSafeEqual(expected, given) ? null : "signature mismatch";
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    const problem = verify(raw, req.headers["x-service-timestamp"], req.headers["x-service-signature"]);
    if (problem) {
      console.log(`refused delivery ${req.headers["x-service-delivery"] ?? "?"}: ${problem}`);
      res.writeHead(401).end();
      return;
    }
    res.writeHead(204).end();
    const event = JSON.parse(raw.toString("utf8"));
    console.log(
      `verified ${req.headers["x-service-event"]} delivery ${req.headers["x-service-delivery"]}: ` +
        `task ${event.task_id ?? event.data?.task_id ?? "?"}`,
    );
  });
});

server.listen(Number(process.env.PORT ?? 8787), "127.0.0.1", () => {
  console.log(`webhook receiver listening on http://127.0.0.1:${server.address().port}/hook`);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
