import { describe, expect, it } from "vitest";
import {
  executionDeadline,
  nextOpening,
  paymentExpiry,
  provisionalExecutionDeadline,
  reviewDeadline,
} from "../../lib/tasks/state/deadlines.js";

/** Parses an ISO string with an explicit offset. */
const d = (iso: string): Date => new Date(iso);
/** Normalised UTC form of an expected ISO string with offset, for readable failures. */
const utc = (iso: string): string => new Date(iso).toISOString();

// January 2026 (EST, -05:00): Wed 14, Thu 15, Fri 16, Sat 17, Sun 18, Mon 19.
describe("nextOpening (review)", () => {
  it("returns the same instant inside weekday hours", () => {
    const at = d("2026-01-14T10:30:00-05:00");
    expect(nextOpening("review", at).toISOString()).toBe(utc("2026-01-14T10:30:00-05:00"));
  });
  it("before opening on a weekday → 08:00 the same day", () => {
    expect(nextOpening("review", d("2026-01-14T06:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-14T08:00:00-05:00"),
    );
  });
  it("after 22:00 on a weekday → next day 08:00", () => {
    expect(nextOpening("review", d("2026-01-14T22:30:00-05:00")).toISOString()).toBe(
      utc("2026-01-15T08:00:00-05:00"),
    );
  });
  it("exactly at closing time (22:00) is outside hours", () => {
    expect(nextOpening("review", d("2026-01-14T22:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-15T08:00:00-05:00"),
    );
  });
  it("Friday 23:00 → Saturday 09:00", () => {
    expect(nextOpening("review", d("2026-01-16T23:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-17T09:00:00-05:00"),
    );
  });
  it("Saturday 08:30 (weekday hours would be open) → Saturday 09:00", () => {
    expect(nextOpening("review", d("2026-01-17T08:30:00-05:00")).toISOString()).toBe(
      utc("2026-01-17T09:00:00-05:00"),
    );
  });
  it("Saturday 20:00 → Sunday 09:00", () => {
    expect(nextOpening("review", d("2026-01-17T20:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-18T09:00:00-05:00"),
    );
  });
  it("Sunday 19:00 → Monday 08:00", () => {
    expect(nextOpening("review", d("2026-01-18T19:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-19T08:00:00-05:00"),
    );
  });
});

describe("nextOpening (execution)", () => {
  it("weekday 06:00 → 07:00; weekday 20:00 → next day 07:00", () => {
    expect(nextOpening("execution", d("2026-01-14T06:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-14T07:00:00-05:00"),
    );
    expect(nextOpening("execution", d("2026-01-14T20:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-15T07:00:00-05:00"),
    );
  });
  it("Friday 21:00 → Saturday 08:00; Sunday 17:00 → Monday 07:00", () => {
    expect(nextOpening("execution", d("2026-01-16T21:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-17T08:00:00-05:00"),
    );
    expect(nextOpening("execution", d("2026-01-18T17:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-19T07:00:00-05:00"),
    );
  });
  it("inside weekend execution hours returns the same instant", () => {
    expect(nextOpening("execution", d("2026-01-17T16:59:00-05:00")).toISOString()).toBe(
      utc("2026-01-17T16:59:00-05:00"),
    );
  });
});

describe("reviewDeadline", () => {
  it("inside weekday hours: clock starts at submission (+24 h)", () => {
    expect(reviewDeadline(d("2026-01-14T10:30:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-15T10:30:00-05:00"),
    );
  });
  it("after 22:00 on a weekday: starts next day 08:00", () => {
    expect(reviewDeadline(d("2026-01-14T22:30:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-16T08:00:00-05:00"),
    );
  });
  it("Saturday 20:00 → starts Sunday 09:00", () => {
    expect(reviewDeadline(d("2026-01-17T20:00:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-19T09:00:00-05:00"),
    );
  });
  it("Friday 23:00 → starts Saturday 09:00", () => {
    expect(reviewDeadline(d("2026-01-16T23:00:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-18T09:00:00-05:00"),
    );
  });
  it("Sunday 19:00 → starts Monday 08:00", () => {
    expect(reviewDeadline(d("2026-01-18T19:00:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-20T08:00:00-05:00"),
    );
  });
  it("urgent ignores hours: starts immediately, +12 h", () => {
    expect(reviewDeadline(d("2026-01-14T23:00:00-05:00"), "urgent").toISOString()).toBe(
      utc("2026-01-15T11:00:00-05:00"),
    );
    expect(reviewDeadline(d("2026-01-18T03:00:00-05:00"), "urgent").toISOString()).toBe(
      utc("2026-01-18T15:00:00-05:00"),
    );
  });

  describe("DST spring forward (Sunday 2026-03-08, 02:00 EST → 03:00 EDT)", () => {
    it("Saturday 20:00 EST → starts Sunday 09:00 EDT → Monday 09:00 EDT", () => {
      const r = reviewDeadline(d("2026-03-07T20:00:00-05:00"), "standard");
      expect(r.toISOString()).toBe(utc("2026-03-09T09:00:00-04:00"));
      expect(r.toISOString()).toBe("2026-03-09T13:00:00.000Z");
    });
    it("Saturday 10:00 EST + 24 elapsed hours = Sunday 11:00 EDT (not 10:00)", () => {
      const r = reviewDeadline(d("2026-03-07T10:00:00-05:00"), "standard");
      expect(r.toISOString()).toBe(utc("2026-03-08T11:00:00-04:00"));
      expect(r.toISOString()).toBe("2026-03-08T15:00:00.000Z");
    });
    it("urgent Saturday 23:00 EST + 12 elapsed hours = Sunday 12:00 EDT", () => {
      expect(reviewDeadline(d("2026-03-07T23:00:00-05:00"), "urgent").toISOString()).toBe(
        utc("2026-03-08T12:00:00-04:00"),
      );
    });
    it("Sunday 01:30 EST (before the jump) → opening Sunday 09:00 EDT", () => {
      expect(nextOpening("review", d("2026-03-08T01:30:00-05:00")).toISOString()).toBe(
        "2026-03-08T13:00:00.000Z",
      );
    });
  });

  describe("DST fall back (Sunday 2026-11-01, 02:00 EDT → 01:00 EST)", () => {
    it("Saturday 20:00 EDT → starts Sunday 09:00 EST → Monday 09:00 EST", () => {
      const r = reviewDeadline(d("2026-10-31T20:00:00-04:00"), "standard");
      expect(r.toISOString()).toBe(utc("2026-11-02T09:00:00-05:00"));
      expect(r.toISOString()).toBe("2026-11-02T14:00:00.000Z");
    });
    it("Saturday 10:00 EDT + 24 elapsed hours = Sunday 09:00 EST (not 10:00)", () => {
      const r = reviewDeadline(d("2026-10-31T10:00:00-04:00"), "standard");
      expect(r.toISOString()).toBe(utc("2026-11-01T09:00:00-05:00"));
      expect(r.toISOString()).toBe("2026-11-01T14:00:00.000Z");
    });
    it("Sunday 01:30 EST (second 01:30) → opening Sunday 09:00 EST", () => {
      expect(nextOpening("review", d("2026-11-01T01:30:00-05:00")).toISOString()).toBe(
        "2026-11-01T14:00:00.000Z",
      );
    });
  });
});

describe("executionDeadline", () => {
  it("inside weekday hours: +72 h from payment", () => {
    expect(executionDeadline(d("2026-01-14T12:00:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-17T12:00:00-05:00"),
    );
  });
  it("paid weekday 06:00 → starts 07:00 → +72 h", () => {
    expect(executionDeadline(d("2026-01-14T06:00:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-17T07:00:00-05:00"),
    );
  });
  it("paid Saturday 17:30 → starts Sunday 08:00 → +72 h", () => {
    expect(executionDeadline(d("2026-01-17T17:30:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-21T08:00:00-05:00"),
    );
  });
  it("urgent ignores hours: +24 h from payment", () => {
    expect(executionDeadline(d("2026-01-18T03:00:00-05:00"), "urgent").toISOString()).toBe(
      utc("2026-01-19T03:00:00-05:00"),
    );
  });
  it("across spring forward: Friday 21:00 EST → Saturday 08:00 EST → +72 h = Tuesday 09:00 EDT", () => {
    expect(executionDeadline(d("2026-03-06T21:00:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-03-10T09:00:00-04:00"),
    );
  });
  it("across fall back: Friday 21:00 EDT → Saturday 08:00 EDT → +72 h = Tuesday 07:00 EST", () => {
    expect(executionDeadline(d("2026-10-30T21:00:00-04:00"), "standard").toISOString()).toBe(
      utc("2026-11-03T07:00:00-05:00"),
    );
  });
});

describe("provisionalExecutionDeadline", () => {
  it("standard: review deadline Thu 21:30 is after execution hours → Fri 07:00 + 72 h", () => {
    expect(provisionalExecutionDeadline(d("2026-01-14T21:30:00-05:00"), "standard").toISOString()).toBe(
      utc("2026-01-19T07:00:00-05:00"),
    );
  });
  it("urgent: +12 h review then +24 h execution, no hours", () => {
    expect(provisionalExecutionDeadline(d("2026-01-14T23:00:00-05:00"), "urgent").toISOString()).toBe(
      utc("2026-01-16T11:00:00-05:00"),
    );
  });
});

describe("paymentExpiry", () => {
  it("is +48 elapsed hours, regardless of hours", () => {
    expect(paymentExpiry(d("2026-01-17T23:00:00-05:00")).toISOString()).toBe(
      utc("2026-01-19T23:00:00-05:00"),
    );
  });
  it("is +48 elapsed hours across spring forward (wall clock +49 h)", () => {
    expect(paymentExpiry(d("2026-03-07T12:00:00-05:00")).toISOString()).toBe(
      utc("2026-03-09T13:00:00-04:00"),
    );
  });
});

describe("input validation", () => {
  const bad = new Date("not a date");
  it.each([
    ["nextOpening", () => nextOpening("review", bad)],
    ["reviewDeadline", () => reviewDeadline(bad, "standard")],
    ["executionDeadline", () => executionDeadline(bad, "urgent")],
    ["provisionalExecutionDeadline", () => provisionalExecutionDeadline(bad, "standard")],
    ["paymentExpiry", () => paymentExpiry(bad)],
    ["non-Date value", () => paymentExpiry("2026-01-14T10:00:00Z" as unknown as Date)],
  ])("%s throws RangeError on an invalid date", (_name, fn) => {
    expect(fn).toThrow(RangeError);
  });
  it("rejects an unknown urgency or activity", () => {
    const at = d("2026-01-14T10:00:00-05:00");
    expect(() => reviewDeadline(at, "asap" as unknown as "urgent")).toThrow(RangeError);
    expect(() => nextOpening("dispatch" as unknown as "review", at)).toThrow(RangeError);
  });
});

describe("nextOpening's remembered window", () => {
  /** The answer computed afresh: a call far away first replaces the remembered window. */
  const fresh = (activity: "review" | "execution", at: Date): string => {
    nextOpening(activity, d("2001-06-01T12:00:00Z"));
    return nextOpening(activity, at).toISOString();
  };

  it.each(["review", "execution"] as const)(
    "%s: gives the fresh answer for every instant, 7-minute steps across a DST week, in and out of order",
    (activity) => {
      // 2026-03-06 (Fri) to 2026-03-13: DST starts on Sun 2026-03-08 at 02:00 in Toronto.
      const start = d("2026-03-06T00:00:00-05:00").getTime();
      const instants: Date[] = [];
      for (let t = start; t < start + 7 * 24 * 3_600_000; t += 7 * 60_000 + 13_000)
        instants.push(new Date(t));
      const expected = instants.map((at) => fresh(activity, at));
      // In time order (mostly remembered-window hits)...
      expect(instants.map((at) => nextOpening(activity, at).toISOString())).toEqual(expected);
      // ...and backwards (each window is entered from its end).
      const backwards = [...instants].reverse().map((at) => nextOpening(activity, at).toISOString());
      expect(backwards.reverse()).toEqual(expected);
      // Exactly at openings and closings (half-open hours).
      for (const iso of [
        "2026-03-09T08:00:00-04:00",
        "2026-03-09T22:00:00-04:00",
        "2026-03-07T18:00:00-05:00",
      ]) {
        const at = d(iso);
        const want = fresh(activity, at);
        nextOpening(activity, new Date(at.getTime() - 1));
        expect(nextOpening(activity, at).toISOString()).toBe(want);
      }
    },
  );

  it("returns a new Date each time, never the remembered one", () => {
    const at = d("2026-01-14T10:30:00-05:00");
    const a = nextOpening("review", at);
    const b = nextOpening("review", at);
    expect(a).not.toBe(b);
    expect(a).not.toBe(at);
  });
});
