import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  codePointLength,
  isFieldTooLongIssue,
  LANGS,
  LIMITS,
  PREFERRED_OUTPUTS,
  SERVICE_TYPES,
  taskSubmissionSchema,
  URGENCIES,
  unknownFieldsMessage,
} from "../../lib/tasks/state/schemas.js";

const minimal = {
  service_type: "SVC-02",
  location_address: "1234 Rue Saint-Denis, Montreal, QC H2X 3J6",
  task_description: "Inspect the bicycle listed on Marketplace and buy it if the frame is not cracked.",
  requester_contact: "agent@example.com",
};

const parse = (extra: Record<string, unknown>) => taskSubmissionSchema.safeParse({ ...minimal, ...extra });
const issuesOf = (extra: Record<string, unknown>) => parse(extra).error?.issues ?? [];

describe("task submission schema", () => {
  it("exports the spec's enums and limits", () => {
    expect(SERVICE_TYPES).toEqual(["SVC-01", "SVC-02", "SVC-03", "SVC-04", "SVC-05"]);
    expect(URGENCIES).toEqual(["standard", "urgent"]);
    expect(PREFERRED_OUTPUTS).toEqual(["photos", "PDF", "JSON", "CSV", "video"]);
    expect(LANGS).toEqual(["fr", "en"]);
    expect(LIMITS).toEqual({
      location_address: 300,
      task_description: 2000,
      requester_contact: 254,
      special_instructions: 500,
      preferred_output: 100,
      callback_url: 2048,
    });
  });

  it("parses a minimal body and applies the defaults", () => {
    const r = taskSubmissionSchema.parse(minimal);
    expect(r).toEqual({ ...minimal, urgency: "standard", lang: "fr" });
    expect(r).not.toHaveProperty("preferred_output");
  });

  it("parses a full body", () => {
    const full = {
      ...minimal,
      service_type: "SVC-01",
      urgency: "urgent",
      budget_limit: 0,
      max_cost_cad: 0.01,
      special_instructions: "Ring 4B.",
      preferred_output: "PDF",
      callback_url: "https://agent.example.com/hook?x=1",
      lang: "en",
    };
    expect(taskSubmissionSchema.parse(full)).toEqual(full);
  });

  it("SVC-01 defaults preferred_output to photos and accepts only photos|PDF|JSON", () => {
    expect(parse({ service_type: "SVC-01" }).data?.preferred_output).toBe("photos");
    expect(parse({ service_type: "SVC-01", preferred_output: "JSON" }).data?.preferred_output).toBe("JSON");
    const issues = issuesOf({ service_type: "SVC-01", preferred_output: "video" });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "invalid_value", path: ["preferred_output"] });
    // Other services accept the whole list.
    expect(parse({ service_type: "SVC-02", preferred_output: "video" }).success).toBe(true);
  });

  it("accepts budget_limit for SVC-01..03 only", () => {
    for (const s of ["SVC-01", "SVC-02", "SVC-03"])
      expect(parse({ service_type: s, budget_limit: 300 }).success).toBe(true);
    for (const s of ["SVC-04", "SVC-05"]) {
      const issues = issuesOf({ service_type: s, budget_limit: 300 });
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ code: "custom", path: ["budget_limit"] });
      expect(issues[0]?.message).toContain(s);
      expect(parse({ service_type: s, max_cost_cad: 300 }).success).toBe(true);
    }
  });

  it("trims strings and rejects required strings that are blank", () => {
    const r = taskSubmissionSchema.parse({
      ...minimal,
      location_address: "  12 Rue X, Laval, QC  ",
      requester_contact: " agent@example.com\n",
      special_instructions: "  note ",
    });
    expect(r.location_address).toBe("12 Rue X, Laval, QC");
    expect(r.requester_contact).toBe("agent@example.com");
    expect(r.special_instructions).toBe("note");
    for (const f of ["location_address", "task_description", "requester_contact"]) {
      const issues = issuesOf({ [f]: " \t\n " });
      expect(issues.some((i) => i.path[0] === f && i.code === "too_small")).toBe(true);
    }
  });

  it("reports every missing required field", () => {
    const r = taskSubmissionSchema.safeParse({});
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path[0]).sort();
    expect(paths).toEqual(["location_address", "requester_contact", "service_type", "task_description"]);
  });

  const lengthLimited = [
    ["location_address", LIMITS.location_address],
    ["task_description", LIMITS.task_description],
    ["special_instructions", LIMITS.special_instructions],
  ] as const;

  for (const [field, max] of lengthLimited) {
    it(`${field}: ${max} characters pass, ${max + 1} fail with FIELD_TOO_LONG`, () => {
      expect(parse({ [field]: "a".repeat(max) }).success).toBe(true);
      const issues = issuesOf({ [field]: "a".repeat(max + 1) });
      expect(issues).toHaveLength(1);
      const issue = issues[0]!;
      expect(issue).toMatchObject({ code: "too_big", origin: "string", maximum: max, path: [field] });
      expect(isFieldTooLongIssue(issue)).toBe(true);
      expect(issue.message).toContain(`${field} exceeds ${max}`);
      // Surrounding whitespace is trimmed before counting.
      expect(parse({ [field]: `  ${"a".repeat(max)}  ` }).success).toBe(true);
    });
  }

  it(`requester_contact: ${LIMITS.requester_contact} characters pass, one more fails`, () => {
    const domain = "@example.com";
    const at = (n: number) => `${"a".repeat(n - domain.length)}${domain}`;
    expect(parse({ requester_contact: at(254) }).success).toBe(true);
    const issues = issuesOf({ requester_contact: at(255) });
    expect(issues.some((i) => isFieldTooLongIssue(i) && i.path[0] === "requester_contact")).toBe(true);
  });

  it(`callback_url: ${LIMITS.callback_url} characters pass, one more fails`, () => {
    const base = "https://agent.example.com/";
    const url = (n: number) => base + "a".repeat(n - base.length);
    expect(parse({ callback_url: url(2048) }).success).toBe(true);
    const issues = issuesOf({ callback_url: url(2049) });
    expect(issues).toHaveLength(1);
    expect(isFieldTooLongIssue(issues[0]!)).toBe(true);
  });

  it("preferred_output (<= 100 chars) only takes the listed values", () => {
    for (const v of PREFERRED_OUTPUTS) expect(parse({ preferred_output: v }).success).toBe(true);
    for (const v of ["pdf", "Photos", "x".repeat(101), ""]) {
      expect(issuesOf({ preferred_output: v })[0]).toMatchObject({
        code: "invalid_value",
        path: ["preferred_output"],
      });
    }
  });

  it("rejects unknown fields, naming them with a suggestion", () => {
    const issues = issuesOf({ budjet_limit: 100 });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["budjet_limit"] });
    expect(issues[0]?.message).toContain('"budjet_limit" (did you mean "budget_limit"?)');
    const two = issuesOf({ foo: 1, Lang: "en" })[0]!;
    expect(two).toMatchObject({ code: "unrecognized_keys", keys: ["foo", "Lang"] });
    expect(two.message).toMatch(/^Unknown fields "foo", "Lang" \(did you mean "lang"\?\)/);
    expect(unknownFieldsMessage(["zzzzzzzz"], ["lang"])).not.toContain("did you mean");
  });

  it("rejects wrong types", () => {
    const cases: Record<string, unknown>[] = [
      { service_type: "SVC-06" },
      { service_type: 1 },
      { location_address: 42 },
      { task_description: ["a"] },
      { requester_contact: null },
      { urgency: "URGENT" },
      { urgency: "asap" },
      { budget_limit: "100" },
      { budget_limit: -0.01 },
      // Over the numeric(12,2) columns' safe range: refused here, never a failed insert (500).
      { budget_limit: 1e300 },
      { budget_limit: 1_000_000.01 },
      { max_cost_cad: 1e300 },
      { max_cost_cad: 0 },
      { max_cost_cad: 0.009 },
      { max_cost_cad: "5" },
      { special_instructions: 5 },
      { callback_url: 123 },
      { lang: "de" },
      { lang: "FR" },
    ];
    for (const c of cases) {
      const r = parse(c);
      expect(r.success, JSON.stringify(c)).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual([Object.keys(c)[0]]);
    }
    for (const body of [null, [], "x", 5]) expect(taskSubmissionSchema.safeParse(body).success).toBe(false);
  });

  it("rejects bad e-mail addresses", () => {
    for (const e of [
      "agent",
      "agent@",
      "@example.com",
      "agent@example",
      "a b@example.com",
      "agent@@example.com",
    ]) {
      const issues = issuesOf({ requester_contact: e });
      expect(issues[0], e).toMatchObject({ code: "invalid_format", path: ["requester_contact"] });
    }
  });

  it("rejects callback URLs that are not absolute http(s) URLs", () => {
    for (const u of [
      "not a url",
      "/relative",
      "ftp://example.com/x",
      "javascript:alert(1)",
      "mailto:a@example.com",
    ]) {
      expect(parse({ callback_url: u }).success, u).toBe(false);
    }
    // Syntax only: plain http and loopback pass here (the HTTPS / SSRF policy is checked elsewhere).
    expect(parse({ callback_url: "http://127.0.0.1:8080/cb" }).success).toBe(true);
  });

  it("counts lengths in code points: emoji count 1, combining marks count separately", () => {
    expect(codePointLength("😀")).toBe(1);
    expect("😀".length).toBe(2);
    expect(codePointLength("e\u0301")).toBe(2); // e + combining acute accent
    expect(codePointLength("é")).toBe(1); // precomposed
    // 2000 emoji = 4000 UTF-16 code units, still within the 2000-character limit.
    expect(parse({ task_description: "😀".repeat(2000) }).success).toBe(true);
    expect(isFieldTooLongIssue(issuesOf({ task_description: "😀".repeat(2001) })[0]!)).toBe(true);
    // Emoji ZWJ sequences count each code point (family = 5 code points).
    expect(codePointLength("👨‍👩‍👧")).toBe(5);
    expect(parse({ special_instructions: "👨‍👩‍👧".repeat(100) }).success).toBe(true);
    expect(parse({ special_instructions: "👨‍👩‍👧".repeat(100) + "x" }).success).toBe(false);
    // Decomposed accents: 250 x (e + U+0301) = 500 code points, fits; one more does not.
    expect(parse({ special_instructions: "e\u0301".repeat(250) }).success).toBe(true);
    expect(parse({ special_instructions: "e\u0301".repeat(250) + "e" }).success).toBe(false);
  });

  it("produces a JSON Schema (input side) with maxLength, defaults and additionalProperties false", () => {
    const js = z.toJSONSchema(taskSubmissionSchema, { target: "draft-2020-12", io: "input" }) as {
      properties: Record<
        string,
        { maxLength?: number; default?: unknown; description?: string; examples?: unknown[] }
      >;
      required: string[];
      additionalProperties: boolean;
    };
    expect(js.additionalProperties).toBe(false);
    expect(js.required).toEqual([
      "service_type",
      "location_address",
      "task_description",
      "requester_contact",
    ]);
    expect(js.properties.task_description?.maxLength).toBe(2000);
    expect(js.properties.special_instructions?.maxLength).toBe(500);
    expect(js.properties.location_address?.maxLength).toBe(300);
    expect(js.properties.requester_contact?.maxLength).toBe(254);
    expect(js.properties.callback_url?.maxLength).toBe(2048);
    expect(js.properties.urgency?.default).toBe("standard");
    expect(js.properties.lang?.default).toBe("fr");
    for (const [name, p] of Object.entries(js.properties)) {
      expect(p.description, name).toBeTruthy();
      expect(p.examples?.length, name).toBeGreaterThan(0);
    }
    expect(js.properties.budget_limit?.description).toContain("CAD");
    expect(js.properties.max_cost_cad?.description).toContain("CAD");
  });
});
