/**
 * Facts stated once (issue 30 item 1): each number below has one source in code, and every
 * published text that states it — /openapi.json, /llms.txt, /api/capabilities, the MCP tools, the
 * README and the documents of docs/ — must state the source's value. A text that hard-codes a
 * number fails here when the source changes. The table (fact → source → where it is quoted) is
 * docs/architecture.md "Facts stated once".
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serviceCountWord } from "../../lib/catalog/facts.js";
import { PRICING } from "../../lib/catalog/pricing.js";
import { DEFAULT_TRANSPORT_SPEED_KMH } from "../../lib/config/server.js";
import { SERVICE_TYPES } from "../../lib/db/schema/enums.js";
import { EVENT_TYPES } from "../../lib/db/schema/event-registry.js";
import { TOOLS } from "../../lib/mcp/tools.js";
import { buildOpenApiDocument } from "../../lib/openapi/document.js";
import { buildCapabilities } from "../../lib/system/capabilities.js";
import { buildLlmsTxt } from "../../lib/system/llms.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every published text, by name. */
function texts(): Record<string, string> {
  return {
    "/openapi.json": JSON.stringify(buildOpenApiDocument()),
    "/llms.txt": buildLlmsTxt(),
    "/api/capabilities": JSON.stringify(buildCapabilities()),
    "MCP tools": JSON.stringify(
      TOOLS.map((t) => ({
        d: t.description,
        i: Object.values(t.input).map(
          (s) => (s as { meta?: () => { description?: string } }).meta?.()?.description,
        ),
      })),
    ),
    "README.md": readFileSync(path.join(ROOT, "README.md"), "utf8"),
    // Every topic document (benchmark tables quote measured numbers, not facts).
    ...Object.fromEntries(
      readdirSync(path.join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md") && f !== "performance.md")
        .map((f) => [`docs/${f}`, readFileSync(path.join(ROOT, "docs", f), "utf8")]),
    ),
  };
}

const num = (s: string) => Number(s);
const lastId = Number(SERVICE_TYPES[SERVICE_TYPES.length - 1]!.slice(4));

/** fact → its source's value → patterns whose first group states it. */
const FACTS: {
  fact: string;
  value: number | string;
  patterns: RegExp[];
  read?: (s: string) => number | string;
}[] = [
  {
    fact: "km rate, CAD/km",
    value: PRICING.km_rate_cad,
    patterns: [
      /km_roundtrip\s*[×x*]\s*(\d+(?:\.\d+)?)/g,
      /round-trip km\s*[×x*]\s*(\d+(?:\.\d+)?)/g,
      /CAD\/km \((\d+(?:\.\d+)?)\)/g,
    ],
  },
  {
    fact: "hourly rate, CAD/h",
    value: PRICING.hourly_rate_cad,
    patterns: [/site_hours\s*[×x*]\s*(\d+(?:\.\d+)?)/g, /transport_hours\s*[×x*]\s*(\d+(?:\.\d+)?)/g],
  },
  { fact: "base fee, CAD", value: PRICING.base_fee_cad, patterns: [/(\d+(?:\.\d+)?)\s*\+\s*site_hours/g] },
  {
    fact: "urgency multiplier",
    value: PRICING.urgency_multiplier,
    patterns: [/[×x]\s*(\d+(?:\.\d+)?) when urgent/g, /multiplies the total by (\d+(?:\.\d+)?)/g],
  },
  {
    fact: "default road speed, km/h",
    value: DEFAULT_TRANSPORT_SPEED_KMH,
    patterns: [/round-trip km\s*[÷/]\s*(\d+(?:\.\d+)?)\s*km\/h/g, /TRANSPORT_SPEED_KMH \(default (\d+)\)/g],
  },
  { fact: "last service id", value: lastId, patterns: [/SVC-01\s*(?:to|\.\.|–|-)\s*SVC-(\d\d)/g] },
  {
    fact: "number of services",
    value: serviceCountWord(),
    patterns: [
      /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) (?:physical-task )?services\b/g,
    ],
    read: (s) => s,
  },
];

describe("facts stated once", () => {
  const all = texts();
  it.each(FACTS.map((f) => [f.fact, f]))("%s: every text states the source's value", (_name, f) => {
    let quoted = 0;
    const wrong: string[] = [];
    for (const [where, text] of Object.entries(all)) {
      for (const pattern of f.patterns) {
        for (const match of text.matchAll(pattern)) {
          quoted++;
          const stated = (f.read ?? num)(match[1]!);
          if (stated !== f.value)
            wrong.push(`${where}: "${match[0]}" states ${stated}, the source says ${f.value}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(quoted, `${f.fact} is quoted nowhere: the pattern went stale`).toBeGreaterThan(0);
  });

  it("the patterns catch a stale number (the check can fail)", () => {
    const stale =
      "50 + site_hours×100 + transport_hours×100 + km_roundtrip×0.95, ×1.30 when urgent; SVC-01 to SVC-04";
    const km = [...stale.matchAll(FACTS[0]!.patterns[0]!)].map((m) => num(m[1]!));
    expect(km).toEqual([0.95]);
    expect(km[0]).not.toBe(PRICING.km_rate_cad);
    expect([...stale.matchAll(FACTS[3]!.patterns[0]!)].map((m) => num(m[1]!))).toEqual([1.3]);
    expect([...stale.matchAll(FACTS[5]!.patterns[0]!)].map((m) => num(m[1]!))).toEqual([4]);
  });
});

/**
 * The event types a paragraph names (backquoted `task.…` / `billing.…`), when it names at least five:
 * such a paragraph is a list of the event types and must name exactly the registry's (issue 46
 * item 4, event types). History pages (changelog, decisions) are left as written.
 */
function eventTypeLists(text: string): Set<string>[] {
  return text
    .split(/\n\s*\n/)
    .map((para) => new Set([...para.matchAll(/`((?:task|billing)\.[a-z_]+)`/g)].map((m) => m[1]!)))
    .filter((names) => names.size >= 5);
}

describe("event type lists", () => {
  const docs = Object.entries(texts()).filter(
    ([name]) => name.endsWith(".md") && !/changelog|decisions/.test(name),
  );

  it("every document that lists event types lists exactly the registry's", () => {
    const stale: string[] = [];
    for (const [name, text] of docs) {
      for (const names of eventTypeLists(text)) {
        const missing = EVENT_TYPES.filter((t) => !names.has(t));
        const unknown = [...names].filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
        if (missing.length || unknown.length) {
          stale.push(
            `${name}: missing ${missing.join(", ") || "none"}; unknown ${unknown.join(", ") || "none"}`,
          );
        }
      }
    }
    expect(stale).toEqual([]);
    // The webhook registration list of docs/notifications.md is one of those checked.
    expect(
      docs.some(([name, text]) => name === "docs/notifications.md" && eventTypeLists(text).length > 0),
    ).toBe(true);
  });

  it("catches a stale list (one type missing, one unknown)", () => {
    const stale = EVENT_TYPES.filter((t) => t !== "task.at_risk")
      .map((t) => `\`${t}\``)
      .join(", ");
    const [names] = eventTypeLists(`Events: ${stale}, \`task.teleported\`.`);
    expect(EVENT_TYPES.filter((t) => !names!.has(t))).toEqual(["task.at_risk"]);
    expect([...names!].filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))).toEqual([
      "task.teleported",
    ]);
  });
});
