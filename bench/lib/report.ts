/** Markdown rendering of benchmark results and their upkeep in docs/performance.md. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Section } from "./types.js";

/** Column alignment of `table`. */
export type Align = "left" | "right";

/** A Markdown table; `align` defaults to left for the first column, right for the others. */
export function table(headers: string[], rows: string[][], align?: Align[]): string {
  const aligns = headers.map((_, i) => align?.[i] ?? (i === 0 ? "left" : "right"));
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    line(headers),
    line(aligns.map((a) => (a === "right" ? "---:" : "---"))),
    ...rows.map((row) => line(row)),
  ].join("\n");
}

/** `n` with `digits` decimals and thousands separators. */
export function num(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Facts about the machine and runtime the numbers were taken on. */
export function machineFacts(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? "unknown CPU";
  const memGiB = os.totalmem() / 1024 ** 3;
  return (
    `${cpus.length} CPUs (${model}), ${num(memGiB, 1)} GiB RAM, ` +
    `${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`
  );
}

/** Renders one section: heading, date, machine, command, then the benchmark's body. */
export function renderSection(section: Section, date = new Date()): string {
  return [
    `## ${section.title}`,
    "",
    `- Date: ${date.toISOString().replace(/\.\d+Z$/, "Z")}`,
    `- Machine: ${machineFacts()}`,
    `- Command: \`${section.command}\``,
    "",
    section.body.trim(),
  ].join("\n");
}

const HEADER = `# Performance

Numbers measured with the benchmark suite in \`bench/\` (\`npm run bench -- <name|all> [--write]\`).
Each section below is regenerated in place by \`npm run bench -- <name> --write\`; sections of
benchmarks not run are kept. Numbers depend on the machine: compare ratios, not absolutes.
`;

const startMarker = (name: string) => `<!-- bench:${name}:start -->`;
const endMarker = (name: string) => `<!-- bench:${name}:end -->`;

/**
 * Replaces (or appends) each rendered section in the Markdown document `doc`, between
 * `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` markers.
 */
export function upsertSections(doc: string, sections: { name: string; markdown: string }[]): string {
  let out = doc.trim() === "" ? HEADER : doc;
  for (const { name, markdown } of sections) {
    const block = `${startMarker(name)}\n${markdown.trim()}\n${endMarker(name)}`;
    const start = out.indexOf(startMarker(name));
    const end = out.indexOf(endMarker(name));
    if (start >= 0 && end > start) {
      out = out.slice(0, start) + block + out.slice(end + endMarker(name).length);
    } else {
      out = `${out.trimEnd()}\n\n${block}\n`;
    }
  }
  return out.endsWith("\n") ? out : `${out}\n`;
}

/** Writes `sections` into the Markdown file at `file`, keeping its other sections. */
export function writeSections(file: string, sections: { name: string; markdown: string }[]): void {
  const doc = existsSync(file) ? readFileSync(file, "utf8") : "";
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, upsertSections(doc, sections));
}
