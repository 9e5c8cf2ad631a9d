/**
 * The words of dispute codes in e-mail (lib/mail/labels.ts) are the pages' words
 * (public/shared/messages.js `dispute.reason.*`, `dispute.resolution.*`), for every code of
 * lib/db/schema/enums.ts, in both languages: lib/ may not import public/, so the two copies are
 * compared here.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { DISPUTE_REASONS, DISPUTE_RESOLUTIONS, TASK_STATUSES } from "../../lib/db/schema/enums.js";
import {
  DISPUTE_REASON_LABELS,
  DISPUTE_RESOLUTION_LABELS,
  disputeReasonLabel,
  disputeResolutionLabel,
  TASK_STATUS_LABELS,
  taskStatusLabel,
} from "../../lib/mail/labels.js";

/** The pages' common dictionaries, by language. */
async function pageMessages(): Promise<{ en: Record<string, string>; fr: Record<string, string> }> {
  const file = path.resolve(import.meta.dirname, "../../public/shared/messages.js");
  const { EN, FR } = (await import(pathToFileURL(file).href)) as {
    EN: Record<string, string>;
    FR: Record<string, string>;
  };
  return { en: EN, fr: FR };
}

/** The entries of `dictionary` under `prefix`, the prefix removed. */
function under(dictionary: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(dictionary)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, words]) => [key.slice(prefix.length), words]),
  );
}

describe("dispute words", () => {
  it.each(["en", "fr"] as const)("are the pages' words, for every code (%s)", async (lang) => {
    const pages = (await pageMessages())[lang];
    expect(DISPUTE_REASON_LABELS[lang]).toEqual(under(pages, "dispute.reason."));
    expect(DISPUTE_RESOLUTION_LABELS[lang]).toEqual(under(pages, "dispute.resolution."));
    expect(Object.keys(DISPUTE_REASON_LABELS[lang]).sort()).toEqual([...DISPUTE_REASONS].sort());
    expect(Object.keys(DISPUTE_RESOLUTION_LABELS[lang]).sort()).toEqual([...DISPUTE_RESOLUTIONS].sort());
  });

  it.each(["en", "fr"] as const)(
    "task statuses are the pages' words, for every status (%s)",
    async (lang) => {
      const pages = (await pageMessages())[lang];
      expect(TASK_STATUS_LABELS[lang]).toEqual(under(pages, "status."));
      expect(Object.keys(TASK_STATUS_LABELS[lang]).sort()).toEqual([...TASK_STATUSES].sort());
      expect(taskStatusLabel("on_site", lang)).toBe(lang === "fr" ? "sur place" : "on site");
      expect(taskStatusLabel("toString", lang)).toBeNull();
    },
  );

  it("give words for a code, and nothing for an unknown one", () => {
    expect(disputeReasonLabel("wrong_location", "fr")).toBe("mauvais endroit");
    expect(disputeReasonLabel("not_done", "en")).toBe("not done");
    expect(disputeResolutionLabel("partial_refund", "fr")).toBe("remboursement partiel");
    expect(disputeResolutionLabel("full_refund", "en")).toBe("full refund");
    for (const unknown of ["lost", "toString", "", null, undefined, 3]) {
      expect(disputeReasonLabel(unknown, "en")).toBeNull();
      expect(disputeResolutionLabel(unknown, "fr")).toBeNull();
    }
  });
});
