import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDirectory = fileURLToPath(new URL("..", import.meta.url));
const script = fileURLToPath(new URL("./support/print-artifacts.ts", import.meta.url));

interface Artifacts {
  timezone: string;
  pdf: string;
  zip: string;
  json: string;
}

async function buildInChildProcess(timezone: string): Promise<Artifacts> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", script], {
    cwd: packageDirectory,
    env: { ...process.env, TZ: timezone },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Artifacts;
}

describe("packet artifacts", () => {
  it("are byte-for-byte identical when built in two processes in different time zones", async () => {
    // Tokyo is UTC+9 and New York UTC-4 on the export date: a ZIP timestamp taken from the clock
    // or from UTC fields would differ between them.
    const [tokyo, newYork] = await Promise.all([
      buildInChildProcess("Asia/Tokyo"),
      buildInChildProcess("America/New_York"),
    ]);
    expect(tokyo.timezone).toBe("Asia/Tokyo");
    expect(newYork.timezone).toBe("America/New_York");
    for (const format of ["pdf", "zip", "json"] as const) {
      expect(tokyo[format].length).toBeGreaterThan(100);
      expect(Buffer.from(tokyo[format], "base64").equals(Buffer.from(newYork[format], "base64"))).toBe(true);
    }
  });
});
