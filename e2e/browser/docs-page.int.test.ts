/**
 * /docs in a real browser (Debian's Chromium, driven by playwright-core; no browser download),
 * served by the real REST process. Screenshots go to e2e/.artifacts/ for a person to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@crs/db/testing";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../test/support/http";
import {
  childEnv,
  freePorts,
  HOST,
  httpOk,
  killTree,
  type RunningProcess,
  repoRoot,
  startNode,
  TEST_SECRETS_ENV,
  waitUntil,
} from "../test/support/processes";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The flags Chromium needs here: headless as root, and no calls home on a machine without a network. */
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ARTIFACTS = join(repoRoot, "e2e", ".artifacts");

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let rest: RunningProcess | undefined;
let restUrl = "";
let profileDir: string | undefined;
let browser: BrowserContext | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  database = await createTestDatabase();
  const [port] = await freePorts(1);
  restUrl = `http://${HOST}:${port}`;
  rest = startNode(
    "rest",
    ["--import", "tsx", join(repoRoot, "apps", "rest", "src", "main.ts")],
    childEnv({ DATABASE_URL: database.url, HOST, REST_PORT: String(port), LOG_LEVEL: "warn", ...TEST_SECRETS_ENV }),
  );
  const server = rest;
  await waitUntil("REST to answer GET /v1/health", () => httpOk(`${restUrl}/v1/health`), [server], 60_000);
  profileDir = mkdtempSync(join(tmpdir(), "crs-chromium-"));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 900 },
  });
});

afterAll(async () => {
  await browser?.close();
  await killTree(rest);
  await database?.drop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

interface ConsoleLine {
  type: string;
  text: string;
}

/** A fresh tab that records every console warning and error, and every uncaught page error. */
async function openTab(): Promise<{ page: Page; problems: ConsoleLine[] }> {
  if (!browser) throw new Error("the browser did not start");
  const page = await browser.newPage();
  const problems: ConsoleLine[] = [];
  page.on("console", (message) => {
    if (message.type() === "warning" || message.type() === "error") {
      problems.push({ type: message.type(), text: message.text() });
    }
  });
  page.on("pageerror", (error) => problems.push({ type: "pageerror", text: error.message }));
  return { page, problems };
}

async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path });
  console.log(`screenshot: ${path}`);
}

describe("/docs in Chromium", () => {
  it("shows the operations and every error entry from the first paint, before Scalar's script has even loaded", async () => {
    const { page } = await openTab();
    // The reference script never arrives: what a person sees while it is still on its way.
    await page.route("**/docs/js/scalar.js", (route) => route.abort());
    await page.goto(`${restUrl}/docs`);
    const plain = page.locator(".crs-static-reference");
    await expect.poll(() => plain.isVisible()).toBe(true);
    await expect.poll(() => plain.getByText("Create a matter.").isVisible()).toBe(true);
    await expect.poll(() => plain.locator("#errors-conflict").isVisible()).toBe(true);
    await screenshot(page, "docs-before-scalar.png");
    await page.close();
  });

  it("renders Scalar's operations and errors section, Bearer preselected, with nothing in the console", async () => {
    const { page, problems } = await openTab();
    await page.goto(`${restUrl}/docs`);
    const operation = page.locator('#app [id="api/tag/keys/POST/api/sandbox-key"]');
    await operation.waitFor({ state: "visible", timeout: 30_000 });
    expect(await operation.textContent()).toContain("Mint a sandbox key for a new sandbox organization");
    await page.locator('#app div[id="api/errors"]').waitFor({ state: "visible", timeout: 30_000 });
    await page.locator('#app div[id="api/errors-conflict"]').waitFor({ state: "visible", timeout: 30_000 });
    // Once Scalar has rendered, the plain version is gone from the screen.
    await expect.poll(() => page.locator(".crs-static-reference").isVisible()).toBe(false);
    await expect.poll(() => page.getByText("Bearer Token").first().isVisible()).toBe(true);
    expect(await page.getByText("No authentication selected").count()).toBe(0);
    await screenshot(page, "docs.png");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("takes an error's doc_url to that error's entry", async () => {
    const refused = await api<{ error: { code: string; doc_url: string } }>(`${restUrl}/v1/matters`);
    expect(refused.status).toBe(401);
    const target = new URL(refused.body.error.doc_url, restUrl);
    expect(target.hash).toBe("#errors-unauthenticated");

    const { page, problems } = await openTab();
    await page.goto(target.toString());
    const entry = page.locator('#app div[id="api/errors-unauthenticated"]');
    await entry.waitFor({ state: "visible", timeout: 30_000 });
    // Scalar scrolls to the entry once it has rendered it: its heading ends up at the top of the window.
    await expect
      .poll(async () => {
        const box = await entry.boundingBox();
        return box !== null && box.y >= 0 && box.y < 200;
      })
      .toBe(true);
    expect(await entry.textContent()).toContain("unauthenticated");
    await screenshot(page, "docs-doc-url.png");
    expect(problems).toEqual([]);
    await page.close();
  });
});
