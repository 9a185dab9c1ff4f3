import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSanctionsListFile } from "../src/sanctions/load-sanctions-list";
import { parseEnvironment, SERVICE_ENV_FIELDS, startServiceDeps } from "../src/service-env";

const folder = mkdtempSync(join(tmpdir(), "crs-sanctions-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function listFile(name: string, lines: string[]): string {
  const path = join(folder, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

describe("loadSanctionsListFile", () => {
  it("loads every entry of a JSON-lines file, comments and blank lines aside", () => {
    const path = listFile("good.jsonl", [
      "# OFAC SDN digital currency addresses, extracted 2026-07-01",
      '{"kind":"address","value":"0x1111111111111111111111111111111111111111","network":"ethereum","program":"CYBER2","source":"OFAC SDN"}',
      "",
      '{"kind":"name","value":"Example Sanctioned Person","source":"OFAC SDN"}',
    ]);
    const list = loadSanctionsListFile(path);
    expect(list.source).toBe(path);
    expect(list.entries.map((entry) => [entry.kind, entry.value])).toEqual([
      ["address", "0x1111111111111111111111111111111111111111"],
      ["name", "Example Sanctioned Person"],
    ]);
  });

  it("refuses the whole file with one error naming the file and every bad line", () => {
    const path = listFile("bad.jsonl", [
      '{"kind":"address","value":"0x1111111111111111111111111111111111111111","source":"OFAC SDN"}',
      "not json at all",
      '{"kind":"ship","value":"x","source":"OFAC SDN"}',
    ]);
    expect(() => loadSanctionsListFile(path)).toThrow(
      new RegExp(`^SANCTIONS_LIST_PATH ${path} is malformed, nothing was loaded: line 2: not valid JSON; line 3: kind`),
    );
  });

  it("refuses a file it cannot read, naming it", () => {
    const path = join(folder, "absent.jsonl");
    expect(() => loadSanctionsListFile(path)).toThrow(`SANCTIONS_LIST_PATH ${path} cannot be read`);
  });

  it("stops the start of an app before it touches the database", async () => {
    const path = listFile("bad-start.jsonl", ['{"kind":"name"}']);
    const env = parseEnvironment(SERVICE_ENV_FIELDS, {
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      SANCTIONS_LIST_PATH: path,
    });
    await expect(startServiceDeps(env, () => {})).rejects.toThrow(/line 1: value must be a non-blank string/);
  });
});
