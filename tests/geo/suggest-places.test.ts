/**
 * Place suggestions for LOCATION_NOT_FOUND, the "street address, Québec" reading, and the error
 * as callers get it from GET /api/estimate and POST /api/submit-task (real handlers and database).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as estimate } from "../../api/estimate.js";
import { POST as submit } from "../../api/submit-task.js";
import { resolveLocation } from "../../lib/geo/resolve-location.js";
import { boundedEditDistance, suggestPlaces } from "../../lib/geo/suggest-places.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call } from "../helpers/request.js";
import { validTask } from "../helpers/tasks.js";

useTestDatabase();

describe("boundedEditDistance", () => {
  it.each([
    ["montreal", "montreal", 0],
    ["montrael", "montreal", 2],
    ["laval", "lavall", 1],
    ["kitten", "sitting", 3],
  ])("%s → %s is %i", (a, b, d) => {
    expect(boundedEditDistance(a, b, 3)).toBe(d);
  });

  it("stops past the bound", () => {
    expect(boundedEditDistance("abcdefgh", "zyxwvuts", 2)).toBe(3);
    expect(boundedEditDistance("a", "abcdef", 2)).toBe(3);
  });
});

describe("suggestPlaces", () => {
  it("offers the closest known place first, each place once", () => {
    const s = suggestPlaces("Montrael");
    expect(s[0]).toBe("Montreal");
    expect(s.filter((n) => n.normalize("NFD").replace(/\p{M}/gu, "") === "Montreal")).toHaveLength(1);
    expect(s.length).toBeLessThanOrEqual(3);
  });

  it("reads the city segment of an address", () => {
    expect(suggestPlaces("123 rue Principale, Sant-Jerome")[0]).toBe("Saint-Jerome");
  });

  it("suggests nothing for text far from every name", () => {
    expect(suggestPlaces("qqqqxxzz")).toEqual([]);
  });
});

describe("resolveLocation", () => {
  it('reads a street address followed by "Québec" as Quebec City', async () => {
    const place = await resolveLocation("2500 Boulevard Laurier, Québec");
    expect(place).toMatchObject({ matched: "Québec", in_service_zone: false });
  });

  it("still resolves a city given with its province", async () => {
    expect((await resolveLocation("12 rue X, Laval, Québec"))?.matched).toBe("Laval");
  });
});

describe("LOCATION_NOT_FOUND over HTTP", () => {
  let key: string;
  beforeAll(async () => {
    key = await makeKey(["audit_only", "task_create"]);
  });

  it("estimate: echoes the input and suggests places", async () => {
    const { res, body } = await call(estimate, "/api/estimate?hours=1&location=Montrael");
    expect(res.status).toBe(422);
    expect(body.error).toMatchObject({ code: "LOCATION_NOT_FOUND", field: "location", input: "Montrael" });
    expect(body.error.suggestions[0]).toBe("Montreal");
    expect(body.error.message).toBe(
      `No place in Quebec matches "Montrael"; did you mean ${body.error.suggestions.map((s: string) => `"${s}"`).join(", ")}? Give a full street address with its city`,
    );
  });

  it("submit: the same, on location_address, with no suggestion when none is close", async () => {
    const { res, body } = await call(submit, "/api/submit-task", {
      method: "POST",
      headers: keyHeaders(key),
      json: { ...validTask, location_address: "42 Nowhere Lane, Qqqqxxzz" },
    });
    expect(res.status).toBe(422);
    expect(body.error).toMatchObject({
      code: "LOCATION_NOT_FOUND",
      field: "location_address",
      input: "42 Nowhere Lane, Qqqqxxzz",
      suggestions: [],
    });
    expect(body.error.message).toContain('"42 Nowhere Lane, Qqqqxxzz"');
  });

  it('submit: "street address, Québec" is out of the service zone, not unknown', async () => {
    const { body } = await call(submit, "/api/submit-task", {
      method: "POST",
      headers: keyHeaders(key),
      json: { ...validTask, location_address: "2500 Boulevard Laurier, Québec" },
    });
    expect(body.error.code).toBe("OUT_OF_SERVICE_ZONE");
  });
});
