import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["@crs/db/test-server"],
    include: ["test/**/*.test.ts"],
    // Each file starts real service processes on fixed-for-the-run ports; one file at a time keeps
    // them from competing for the same cores and the shared Postgres.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
