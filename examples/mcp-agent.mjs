// An agent that uses the service through MCP (the official TypeScript SDK client).
//
//   BASE=http://127.0.0.1:3000 [API_KEY=svc_...] node examples/mcp-agent.mjs
//
// It lists the tools, asks for an estimate, gets an API key (register_api_key) unless API_KEY is
// given, submits a sandbox task and checks its status until it completes (a sandbox task advances
// one step per status check, costs nothing and reaches no one).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.env.BASE ?? "http://127.0.0.1:3000";
const client = new Client({ name: "example-agent", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", base)));

/** Calls a tool and returns its structured result (or the JSON in its text). */
async function tool(name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

const { tools } = await client.listTools();
console.log(`tools: ${tools.map((t) => t.name).join(", ")}`);
const estimate = await tool("get_estimate", { hours: 2, location: "Laval" });
console.log(`estimate: ${estimate.total_cad} CAD`);
const apiKey =
  process.env.API_KEY ??
  (await tool("register_api_key", { name: "example agent", contact: "agent@example.com" })).api_key;
const task = await tool("submit_task", {
  api_key: apiKey,
  service_type: "SVC-01",
  location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
  task_description: "Photograph the storefront and the posted opening hours.",
  requester_contact: "agent@example.com",
  sandbox: true,
});
console.log(`submitted ${task.task_id} (${task.status})`);
let status = task.status;
for (let i = 0; i < 10 && status !== "completed"; i++) {
  const view = await tool("check_task_status", { task_id: task.task_id, api_key: apiKey });
  status = view.status;
  console.log(`status: ${status}`);
}
await client.close();
if (status !== "completed") {
  console.error("the sandbox task did not complete");
  process.exit(1);
}
