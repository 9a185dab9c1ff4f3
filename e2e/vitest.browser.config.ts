import { defineConfig } from "vitest/config";

/**
 * The browser tests (`pnpm test:browser`): Debian's Chromium driven by playwright-core against the
 * real REST process. Kept out of `pnpm test`, which must pass on a machine without a browser;
 * `.ci/run` installs Chromium and runs them.
 */
export default defineConfig({
  test: {
    globalSetup: ["@crs/db/test-server"],
    include: ["browser/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
