import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { GET as capabilities } from "../../api/capabilities.js";
import { GET as llms } from "../../api/llms.js";
import { GET as openapi } from "../../api/openapi.js";
import { GET as services } from "../../api/services.js";
import { SERVICE_TYPES, TASK_STATUSES } from "../../lib/db/schema/enums.js";
import { estimateQuerySchema } from "../../lib/pricing/schemas.js";
import { call, expectEnvelope } from "../helpers/request.js";

describe("GET /api/services", () => {
  it("lists five services with contracts", async () => {
    const { res, body } = await call(services, "/api/services");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(body.count).toBe(5);
    expect(body.services.map((s: any) => s.id)).toEqual(["SVC-01", "SVC-02", "SVC-03", "SVC-04", "SVC-05"]);
    expect(body.services[0].contract.pricing).toMatchObject({ base_fee: 50, hourly_rate: 100, km_rate: 0.9 });
    expect(body._links.submit_task).toMatch(/\/api\/submit-task$/);
  });

  it("filters by id and omits contracts with contract=false", async () => {
    const { body } = await call(services, "/api/services?id=svc-03&contract=false");
    expect(body.count).toBe(1);
    expect(body.services[0].id).toBe("SVC-03");
    expect(body.services[0].contract).toBeUndefined();
  });

  it.each([
    ["id=SVC-06", 404, "NOT_FOUND"],
    ["contract=maybe", 422, "VALIDATION_ERROR"],
    [`id=${"x".repeat(21)}`, 422, "FIELD_TOO_LONG"],
  ])("?%s → %i %s", async (qs, status, code) => {
    const { res, body } = await call(services, `/api/services?${qs}`);
    expectEnvelope(body, res, status, code);
  });
});

describe("GET /api/capabilities", () => {
  it("has every block the spec lists and is cacheable for 5 minutes", async () => {
    const { res, body } = await call(capabilities, "/api/capabilities");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    for (const key of [
      "platform",
      "services",
      "service_zone",
      "known_locations",
      "operational_hours",
      "avg_response_times",
      "languages",
      "currencies",
      "authentication",
      "features",
      "endpoints",
      "quick_start",
      "_links",
    ]) {
      expect(body, key).toHaveProperty(key);
    }
    expect(body.platform.version).toBe("4.0.0");
    expect(body.service_zone.geometry.type).toBe("Polygon");
    expect(body.known_locations).toHaveLength(18);
    expect(body.languages).toEqual(["fr", "en"]);
    expect(body.authentication.default_scopes).toEqual(["audit_only", "task_create"]);
    const estimate = body.authentication.endpoint_scopes.find((e: any) => e.path === "/api/estimate");
    expect(estimate).toEqual({ method: "GET", path: "/api/estimate", auth: "optional", scope: null });
    expect(body.endpoints.some((e: any) => e.path.startsWith("/api/cron"))).toBe(false);
    expect(body.features.mcp).toMatchObject({
      methods: ["POST"],
      accept: "application/json, text/event-stream",
    });
  });

  it("lists every task status in lifecycle order and the service ids (the pages' filters read them)", async () => {
    const { body } = await call(capabilities, "/api/capabilities");
    expect(body.task_statuses).toEqual([...TASK_STATUSES]);
    expect(body.task_statuses[0]).toBe("received");
    for (const s of body.terminal_statuses) expect(body.task_statuses).toContain(s);
    expect(body.services.map((s: { id: string }) => s.id)).toEqual([...SERVICE_TYPES]);
  });
});

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document generated from the request schemas", async () => {
    const { res, body } = await call(openapi, "/openapi.json");
    expect(res.status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(body.info.version).toBe("4.0.0");
    const validator = new Validator();
    const result = await validator.validate(body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const op = body.paths["/api/estimate"].get;
    const hours = op.parameters.find((p: any) => p.name === "hours");
    expect(hours).toMatchObject({
      in: "query",
      required: true,
      schema: { type: "number", minimum: 0.25, maximum: 168 },
    });
    // Generated, not copied: the parameter list is exactly the zod schema's keys.
    expect(
      op.parameters
        .filter((p: any) => p.in === "query")
        .map((p: any) => p.name)
        .sort(),
    ).toEqual(Object.keys(estimateQuerySchema.shape).sort());
    expect(op.responses["422"].description).toContain("LOCATION_NOT_FOUND");
    expect(body.paths["/api/cron/check-payments"]).toBeUndefined();
  });

  it("declares the statuses every operation can answer, each narrowed to its codes", async () => {
    const { body } = await call(openapi, "/openapi.json");
    const codes = (response: any) =>
      response.content["application/json"].schema.allOf[1].properties.error.properties.code.enum;
    for (const [path, item] of Object.entries<any>(body.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method} ${path}`;
        expect(op.responses, where).not.toHaveProperty("default");
        expect(codes(op.responses["405"]), where).toEqual(["METHOD_NOT_ALLOWED"]);
        expect(op.responses["405"].headers, where).toHaveProperty("Allow");
        // A key that is sent must be valid everywhere but on MCP, which leaves it to its tools.
        if (op["x-auth"] !== "delegated") expect(codes(op.responses["401"]), where).toContain("UNAUTHORIZED");
      }
    }
    const list = body.paths["/api/task-list"].get;
    expect(codes(list.responses["400"])).toEqual(["INVALID_FORMAT"]);
    expect(list.parameters.find((p: any) => p.name === "status")).toMatchObject({
      style: "form",
      explode: false,
    });
    expect(codes(body.paths["/api/submit-task"].get.responses["422"])).toEqual(["FIELD_TOO_LONG"]);
    // INVALID_FORMAT: a string with U+0000 is refused on every operation.
    expect(codes(body.paths["/api/services"].get.responses["400"])).toEqual([
      "INVALID_FORMAT",
      "MISSING_FIELD",
    ]);
    expect(Object.keys(body.paths["/api/analytics"].get.responses["200"].content)).toEqual([
      "application/json",
      "text/csv",
    ]);
    // 400: a query string with U+0000 is refused before the method answers 405.
    expect(Object.keys(body.paths["/api/mcp"].get.responses)).toEqual(["400", "405", "429", "500", "503"]);
    expect(body.paths["/api/mcp"].post.responses["406"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/JsonRpcError",
    });
  });

  it("resolves every $ref", async () => {
    const { body } = await call(openapi, "/openapi.json");
    const refs = JSON.stringify(body).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const name = ref.split("/").pop()!.replace(/"$/, "");
      expect(body.components.schemas, name).toHaveProperty(name);
    }
  });
});

describe("GET /llms.txt", () => {
  it("is Markdown listing the endpoints", async () => {
    const res = await llms(new Request("http://localhost/llms.txt"));
    expect(res.headers.get("content-type")).toContain("text/markdown");
    const text = await res.text();
    expect(text.startsWith("# Physical Task Execution Service")).toBe(true);
    expect(text).toContain("/api/estimate");
    expect(text).toContain("Mont-Tremblant 120");
  });
});
