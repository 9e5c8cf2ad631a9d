/**
 * The end of a generator of a committed file (`npm run endpoints:generate`, `npm run
 * client:generate`): write the file, or with `--check` in the arguments compare it and exit 1 when
 * the committed one is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Writes `text` to `file` (saying so, relative to `root`), or with `--check` in `process.argv`
 * compares them and exits the process with 1, naming `command`, when they differ.
 */
export function writeOrCheck(file: string, text: string, command: string, root: string): void {
  const name = path.relative(root, file);
  if (process.argv.includes("--check")) {
    if (readFileSync(file, "utf8") !== text) {
      console.error(`${name} is out of date: run ${command}`);
      process.exit(1);
    }
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${name}`);
  }
}
