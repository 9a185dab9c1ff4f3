import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["@crs/db/test-server"],
    include: ["test/**/*.test.ts"],
    // Each file clones its own database and starts its own listener. Two workers keep both cores
    // busy; more would only queue on the same two cores and the shared Postgres.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
