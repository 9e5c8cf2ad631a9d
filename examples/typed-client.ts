/**
 * The typed client (clients/typescript) in use: an estimate, then a sandbox task polled until it
 * completes. Every path, parameter, header and answer below is checked by TypeScript against the
 * OpenAPI document.
 *
 *   BASE=http://127.0.0.1:3000 [API_KEY=svc_...] npx tsx examples/typed-client.ts
 */
import { createClient } from "../clients/typescript/index.js";

const api = createClient({
  baseUrl: process.env.BASE ?? "http://127.0.0.1:3000",
  apiKey: process.env.API_KEY,
});

const estimate = await api.GET("/api/estimate", { params: { query: { hours: 2, location: "Laval" } } });
if (!estimate.data) throw new Error(`estimate: ${JSON.stringify(estimate.error)}`);
console.log(`estimate: ${estimate.data.total_cad} CAD`);

const created = await api.POST("/api/submit-task", {
  params: { header: { "X-Service-Mode": "sandbox", "Idempotency-Key": crypto.randomUUID() } },
  body: {
    service_type: "SVC-01",
    location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
    task_description: "Photograph the storefront and the posted opening hours.",
    requester_contact: "agent@example.com",
  },
});
if (!created.data) throw new Error(`submit: ${JSON.stringify(created.error)}`);
const { task_id, access_token } = created.data;
console.log(`submitted ${task_id}`);

let status: string = created.data.status;
for (let i = 0; i < 10 && status !== "completed"; i++) {
  const polled = await api.GET("/api/submit-task", {
    params: { query: { task_id, ...(access_token ? { access_token } : {}) } },
  });
  if (!polled.data) throw new Error(`status: ${JSON.stringify(polled.error)}`);
  status = polled.data.status;
  console.log(`status: ${status}`);
}
if (status !== "completed") throw new Error("the sandbox task did not complete");
