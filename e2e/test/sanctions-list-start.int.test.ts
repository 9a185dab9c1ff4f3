/**
 * A live sanctions list that cannot be read whole stops `pnpm start` before anything starts, with
 * one error naming every bad line: a list loaded with gaps would pass parties it should catch.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv, describeOutput, exitWithin, repoRoot, startNode } from "./support/processes";

const folder = mkdtempSync(join(tmpdir(), "crs-e2e-sanctions-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function startWithList(path: string) {
  return startNode(
    "pnpm start",
    ["--import", "tsx", join(repoRoot, "scripts", "start.ts")],
    childEnv({
      SANCTIONS_LIST_PATH: path,
      DATA_DIR: join(folder, "data"),
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/x",
    }),
  );
}

describe("pnpm start with SANCTIONS_LIST_PATH", () => {
  it("stops before starting anything when a line is malformed, naming the line", async () => {
    const path = join(folder, "bad.jsonl");
    writeFileSync(
      path,
      [
        '{"kind":"address","value":"0x1111111111111111111111111111111111111111","source":"OFAC SDN"}',
        '{"kind":"address","value":"","source":"OFAC SDN"}',
      ].join("\n"),
    );
    const start = startWithList(path);
    const exit = await exitWithin(start, 30_000);
    expect(exit, describeOutput(start)).toEqual({ code: 2, signal: null });
    expect(start.output()).toContain(
      `[start] not started: SANCTIONS_LIST_PATH ${path} is malformed, nothing was loaded: line 2:`,
    );
    expect(start.output()).not.toContain("[start] ready");
  });

  it("stops when the file cannot be read", async () => {
    const path = join(folder, "missing.jsonl");
    const start = startWithList(path);
    expect(await exitWithin(start, 30_000)).toEqual({ code: 2, signal: null });
    expect(start.output()).toContain(`SANCTIONS_LIST_PATH ${path} cannot be read`);
  });
});
