import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["@crs/db/test-server"],
    include: ["test/**/*.test.ts"],
    // Each file clones its own database; the first run on a server also migrates the template.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
