/** /llms.txt tells an agent what it needs: sandbox, submit fields, payments, signatures, SSE, MCP. */
import { describe, expect, it } from "vitest";
import { GET } from "../../api/llms.js";
import { call } from "../helpers/request.js";

describe("/llms.txt", () => {
  it("covers sandbox, submit fields, payments, signatures, the event stream and MCP", async () => {
    const { res, body } = await call(GET, "/api/llms");
    expect(res.status).toBe(200);
    const text = String(body);
    for (const heading of [
      "## Sandbox",
      "## Submitting a task",
      "## Payments",
      "## Webhook signatures",
      "## Event stream (SSE)",
      "## MCP",
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain("X-Service-Mode: sandbox");
    for (const field of ["service_type", "location_address", "task_description", "requester_contact"]) {
      expect(text).toMatch(new RegExp(`^- ${field} \\(required\\): \\S`, "m"));
    }
    expect(text).toMatch(/^- urgency: /m); // optional fields are not marked required
    expect(text).toContain("X-Service-Signature: sha256=<hex>");
    expect(text).toContain("HMAC-SHA256");
    expect(text).toContain("Last-Event-ID");
    expect(text).toContain("/api/mcp");
    expect(text).toContain("payment_usdc");
  });
});
