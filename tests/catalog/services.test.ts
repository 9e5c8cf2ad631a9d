import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  catalogLinks,
  serviceEntrySchema,
  servicesListResponseSchema,
  servicesQuerySchema,
} from "../../lib/catalog/schemas.js";
import { getService, listServices, PRICING, typicalEstimateRange } from "../../lib/catalog/services.js";
import { getConfig } from "../../lib/config.js";
import { SERVICE_TYPES } from "../../lib/tasks/state/schemas.js";
import { SLA } from "../../lib/tasks/state/sla.js";

type JsonSchema = {
  properties: Record<string, { enum?: string[]; default?: unknown; type?: string; description?: string }>;
  required: string[];
};

const ranges = {
  "SVC-01": { hours: [1, 2], cad: [100, 250] },
  "SVC-02": { hours: [2, 4], cad: [200, 500] },
  "SVC-03": { hours: [4, 8], cad: [550, 1000] },
  "SVC-04": { hours: [1, 2], cad: [150, 300] },
  "SVC-05": { hours: [0.5, 2], cad: [75, 200] },
} as const;

describe("service catalog", () => {
  it("lists five services in id order with every field", () => {
    const services = listServices({ includeContract: true });
    expect(services.map((s) => s.id)).toEqual([...SERVICE_TYPES]);
    for (const s of services) {
      expect(s.name.length).toBeGreaterThan(5);
      expect(s.description.length).toBeGreaterThan(200);
      expect(s.deliverables.length).toBeGreaterThan(0);
      expect(s.required_inputs.length).toBeGreaterThanOrEqual(3);
      expect(s.output_formats.length).toBeGreaterThan(0);
      const r = ranges[s.id];
      expect(s.typical_duration_hours).toEqual({ min: r.hours[0], max: r.hours[1] });
      const c = s.contract!;
      expect(c.sla).toEqual({
        review_hours: 24,
        review_hours_urgent: 12,
        execution_hours: 72,
        execution_hours_urgent: 24,
        payment_window_hours: 48,
      });
      expect(c.pricing).toMatchObject({
        currency: "CAD",
        base_fee: 50,
        hourly_rate: 100,
        km_rate: 0.9,
        urgency_multiplier: 1.25,
        typical_estimate_range: { min: r.cad[0], max: r.cad[1] },
      });
      expect(typicalEstimateRange(s.id)).toEqual({ min: r.cad[0], max: r.cad[1] });
      expect(c.cancellation_policy.contact).toBe(getConfig().CONTACT_EMAIL);
      expect(c.cancellation_policy.before_payment).toMatch(/48 h/);
      expect(c.cancellation_policy.after_payment_before_dispatch).toMatch(/full USDC refund/i);
      expect(c.cancellation_policy.after_dispatch.length).toBeGreaterThan(10);
      const inputs = c.inputs_schema as unknown as JsonSchema;
      expect(inputs.required).toEqual(["location_address", "task_description", "requester_contact"]);
      expect(inputs.properties.urgency).toMatchObject({ enum: ["standard", "urgent"], default: "standard" });
      expect(inputs.properties.special_instructions).toBeDefined();
      const outputs = c.outputs_schema as unknown as JsonSchema;
      expect(Object.keys(outputs.properties)).toEqual(["proof_files_data", "operator_notes", "completed_at"]);
    }
    expect(
      servicesListResponseSchema.safeParse({ services, count: 5, _links: catalogLinks("https://x.test") })
        .success,
    ).toBe(true);
  });

  it("cancellation terms after dispatch follow the spec table", () => {
    const after = Object.fromEntries(
      listServices().map((s) => [s.id, s.contract!.cancellation_policy.after_dispatch]),
    );
    expect(after["SVC-01"]).toMatch(/partial refund.*negotiable/i);
    expect(after["SVC-02"]).toMatch(/refund minus .*costs already incurred/i);
    expect(after["SVC-03"]).toMatch(
      /non-refundable if the auction has already been attended.*partial refund for the items not bid on/i,
    );
    expect(after["SVC-04"]).toMatch(/partial refund.*negotiable/i);
    expect(after["SVC-05"]).toMatch(/non-refundable if the delivery has already been completed/i);
  });

  it("omits the contract when includeContract is false", () => {
    for (const s of listServices({ includeContract: false })) {
      expect(s).not.toHaveProperty("contract");
      expect(serviceEntrySchema.safeParse(s).success).toBe(true);
    }
    expect(getService("SVC-02", { includeContract: false })).not.toHaveProperty("contract");
  });

  it("getService returns one entry or undefined", () => {
    expect(getService("SVC-03")?.name).toBe("Auction Proxy");
    expect(getService("SVC-06")).toBeUndefined();
    expect(getService("svc-01")).toBeUndefined();
    expect(getService("")).toBeUndefined();
  });

  it("budget_limit is listed only for SVC-01..03, with the per-service meaning", () => {
    const props = (id: string) =>
      (getService(id)!.contract!.inputs_schema as unknown as JsonSchema).properties;
    expect(props("SVC-04")).not.toHaveProperty("budget_limit");
    expect(props("SVC-05")).not.toHaveProperty("budget_limit");
    expect(props("SVC-01").budget_limit?.description).toMatch(/maximum acceptable cost/i);
    expect(props("SVC-02").budget_limit?.description).toMatch(
      /including the price of the item and the service/i,
    );
    expect(props("SVC-03").budget_limit?.description).toMatch(/items excluded/i);
    for (const id of ["SVC-01", "SVC-02", "SVC-03"]) expect(props(id).budget_limit?.type).toBe("number");
  });

  it("SVC-01 lists preferred_output photos|PDF|JSON with default photos; others do not", () => {
    const p = (getService("SVC-01")!.contract!.inputs_schema as unknown as JsonSchema).properties;
    expect(p.preferred_output).toMatchObject({ enum: ["photos", "PDF", "JSON"], default: "photos" });
    for (const id of ["SVC-02", "SVC-03", "SVC-04", "SVC-05"]) {
      expect(
        (getService(id)!.contract!.inputs_schema as unknown as JsonSchema).properties,
      ).not.toHaveProperty("preferred_output");
    }
  });

  it("SVC-01 proof files have filename, type and content (base64)", () => {
    const out = getService("SVC-01")!.contract!.outputs_schema as {
      properties: {
        proof_files_data: {
          type: string;
          items: JsonSchema & { properties: Record<string, { contentEncoding?: string }> };
        };
      };
    };
    const pf = out.properties.proof_files_data;
    expect(pf.type).toBe("array");
    expect(pf.items.required).toEqual(["filename", "type", "content"]);
    expect(pf.items.properties.content?.contentEncoding).toBe("base64");
    expect(
      (out as unknown as { properties: { completed_at: { format: string } } }).properties.completed_at.format,
    ).toBe("date-time");
  });

  it("memoizes the JSON Schemas and keeps them immutable", () => {
    const a = getService("SVC-01")!.contract!;
    const b = getService("SVC-01")!.contract!;
    expect(a.inputs_schema).toBe(b.inputs_schema);
    expect(a.outputs_schema).toBe(b.outputs_schema);
    expect(Object.isFrozen(a.inputs_schema)).toBe(true);
    expect(() => {
      (a.inputs_schema as Record<string, unknown>).type = "array";
    }).toThrow();
    // Entries themselves are fresh objects.
    expect(getService("SVC-01")).not.toBe(getService("SVC-01"));
  });

  it("exports the pricing and SLA constants", () => {
    expect(PRICING).toEqual({
      base_fee_cad: 50,
      hourly_rate_cad: 100,
      km_rate_cad: 0.9,
      urgency_multiplier: 1.25,
    });
    expect(SLA.payment_window_hours).toBe(48);
    expect(Object.isFrozen(PRICING) && Object.isFrozen(SLA)).toBe(true);
  });
});

describe("GET /api/services query", () => {
  it("defaults contract to true and leaves id undefined", () => {
    expect(servicesQuerySchema.parse({})).toEqual({ contract: true });
  });
  it("parses contract=false and normalizes id", () => {
    expect(servicesQuerySchema.parse({ id: " svc-02 ", contract: "false" })).toEqual({
      id: "SVC-02",
      contract: false,
    });
  });
  it("accepts an unknown id of <= 20 chars (the endpoint answers 404)", () => {
    const q = servicesQuerySchema.parse({ id: "SVC-99" });
    expect(q.id).toBe("SVC-99");
    expect(getService(q.id!)).toBeUndefined();
  });
  it("rejects other contract values and over-long or empty ids", () => {
    for (const contract of ["yes", "1", "TRUE", ""]) {
      const r = servicesQuerySchema.safeParse({ contract });
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(["contract"]);
    }
    expect(servicesQuerySchema.safeParse({ id: "x".repeat(21) }).success).toBe(false);
    expect(servicesQuerySchema.safeParse({ id: "x".repeat(20) }).success).toBe(true);
    expect(servicesQuerySchema.safeParse({ id: "  " }).success).toBe(false);
  });
  it("ignores unknown query parameters", () => {
    expect(servicesQuerySchema.parse({ utm_source: "x" })).toEqual({ contract: true });
  });
  it("converts to JSON Schema for OpenAPI (input side)", () => {
    const js = z.toJSONSchema(servicesQuerySchema, { io: "input" }) as unknown as JsonSchema;
    expect(js.properties.contract).toMatchObject({ enum: ["true", "false"], default: "true" });
    expect(() => z.toJSONSchema(servicesListResponseSchema, { io: "output" })).not.toThrow();
  });
});
