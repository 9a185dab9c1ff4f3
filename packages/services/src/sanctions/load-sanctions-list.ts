import { readFileSync } from "node:fs";
import { parseSanctionsList } from "@crs/core";
import type { SanctionsLists } from "../context";

/**
 * Reads the live sanctions list (JSON lines, see parseSanctionsList) once at start. An unreadable
 * file, or one with any malformed line, stops the start with one error naming the file and every
 * bad line: a list loaded with gaps would screen as clear the parties it should catch.
 */
export function loadSanctionsListFile(path: string): NonNullable<SanctionsLists["live"]> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`SANCTIONS_LIST_PATH ${path} cannot be read: ${(error as Error).message}`);
  }
  const parsed = parseSanctionsList(text);
  if (!parsed.ok) {
    const lines = parsed.errors.map((problem) => `line ${problem.line}: ${problem.message}`);
    throw new Error(`SANCTIONS_LIST_PATH ${path} is malformed, nothing was loaded: ${lines.join("; ")}`);
  }
  return { entries: parsed.entries, source: path };
}
