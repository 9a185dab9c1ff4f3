import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["@crs/db/test-server"],
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
