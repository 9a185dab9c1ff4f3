/**
 * The boundary checks of `pnpm lint`, each shown failing on a deliberate violation. The fixtures
 * under ../fixtures are laid out like the tree (packages/core/src/…), and the checks run with the
 * project's own configuration files, so a rule that stops matching fails here.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixtures = "tooling/lint/fixtures";
const bin = (name: string) => join(root, "node_modules", ".bin", name);

/**
 * Runs a checker and returns its report as plain text. CI forces color (FORCE_COLOR), and a colored
 * report reads "\x1b[31merror\x1b[39m rule:", so the report is asked for without color and stripped anyway.
 */
function run(command: string, args: string[], cwd = root) {
  const { FORCE_COLOR: _forced, ...env } = process.env;
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...env, NO_COLOR: "1" } });
  return { status: result.status, output: stripVTControlCharacters(`${result.stdout}${result.stderr}`) };
}

describe("import flow (dependency-cruiser, .dependency-cruiser.cjs)", () => {
  let report: { status: number | null; output: string };
  beforeAll(() => {
    report = run(bin("depcruise"), [fixtures, "--config", ".dependency-cruiser.cjs", "--output-type", "err"]);
  });

  it("fails", () => {
    expect(report.status).not.toBe(0);
  });

  it.each([
    ["core-does-no-io", "packages/core/src/reads-the-filesystem.ts → fs"],
    ["core-imports-nothing-of-ours", "packages/core/src/imports-the-database.ts → packages/db/src/index.ts"],
    ["core-imports-nothing-of-ours", "packages/core/src/imports-a-script.ts → scripts/keys.ts"],
    ["core-has-no-dependencies", "packages/core/src/imports-a-library.ts → node_modules/"],
    ["contract-flows-down", "packages/contract/src/imports-services.ts → packages/services/src/index.ts"],
    ["db-flows-down", "packages/db/src/imports-services.ts → packages/services/src/index.ts"],
    ["documents-build-on-core", "packages/documents/src/imports-the-database.ts → packages/db/src/index.ts"],
    ["chain-builds-on-core", "packages/chain/src/imports-services.ts → packages/services/src/index.ts"],
    ["services-flow-down", "packages/services/src/imports-an-app.ts → apps/rest/src/app.ts"],
    ["client-needs-only-the-contract", "packages/client/src/imports-core.ts → packages/core/src/index.ts"],
    ["apps-do-not-import-apps", "apps/rest/src/imports-another-app.ts → apps/trpc/src/server.ts"],
    ["not-to-unresolvable", "packages/services/src/imports-what-does-not-exist.ts → @crs/no-such-package"],
    ["no-non-package-json", "packages/services/src/imports-an-undeclared-library.ts → node_modules/"],
    ["no-circular", "packages/services/src/cycle-a.ts → "],
  ])("reports %s (%s)", (rule, edge) => {
    const lines = report.output.split("\n").filter((line) => line.includes(`error ${rule}:`));
    expect(lines.join("\n")).toContain(edge);
  });

  it("every rule of the configuration is shown failing here", async () => {
    const config = (await import(join(root, ".dependency-cruiser.cjs"))).default as { forbidden: { name: string }[] };
    const shown = report.output.match(/error ([\w-]+):/g)?.map((line) => line.slice(6, -1)) ?? [];
    expect(new Set(shown)).toEqual(new Set(config.forbidden.map((rule) => rule.name)));
  });

  it("passes on the tree itself, checked as pnpm lint checks it", () => {
    const script = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.lint as string;
    const depcruise = script.slice(script.indexOf("depcruise ") + "depcruise ".length);
    const args = depcruise.match(/'[^']*'|\S+/g)?.map((arg) => arg.replace(/^'|'$/g, "")) ?? [];
    expect(args).toContain("tooling");
    const tree = run(bin("depcruise"), args);
    expect(tree.output).toContain("no dependency violations found");
    expect(tree.status).toBe(0);
    // The whole tree: about 2 s of CPU now, and more with every resource; on two shared cores the
    // wall time is several times that, past vitest's 5 s default.
  }, 30_000);
});

describe("core purity and configuration reads (Biome, biome.json)", () => {
  let workspace: string;
  let report: { status: number | null; output: string };
  beforeAll(() => {
    // The tree's biome.json leaves the fixtures out; lint a copy of them under the same rules.
    workspace = mkdtempSync(join(tmpdir(), "crs-lint-fixtures-"));
    cpSync(join(root, fixtures), workspace, { recursive: true });
    const config = JSON.parse(readFileSync(join(root, "biome.json"), "utf8"));
    config.$schema = undefined;
    config.files = { includes: ["**"] };
    for (const override of config.overrides ?? []) {
      if (override.plugins) override.plugins = override.plugins.map((plugin: string) => join(root, plugin));
    }
    writeFileSync(join(workspace, "biome.json"), JSON.stringify({ root: true, ...config }));
    report = run(bin("biome"), ["lint", "--max-diagnostics=100", "."], workspace);
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  it("fails", () => {
    expect(report.status).not.toBe(0);
  });

  it("refuses the clock and randomness in packages/core, line by line", () => {
    const purity = report.output.match(/packages\/core\/src\/reads-the-clock\.ts:\d+:\d+ plugin/g) ?? [];
    expect(purity).toEqual([
      "packages/core/src/reads-the-clock.ts:1:33 plugin",
      "packages/core/src/reads-the-clock.ts:2:33 plugin",
    ]);
  });

  it("refuses process.env outside an app's env.ts", () => {
    expect(report.output).toMatch(/packages\/services\/src\/reads-process-env\.ts:\d+:\d+ lint\/style\/noProcessEnv/);
  });

  it("passes on the tree itself", () => {
    const tree = run(bin("biome"), ["lint", "."]);
    expect(tree.output).not.toMatch(/Found \d+ error/);
    expect(tree.status).toBe(0);
  });
});
