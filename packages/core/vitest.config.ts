import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Property tests run hundreds of cases on the CPU; on a shared two-core machine a busy neighbour
    // can stretch one past vitest's 5 s default. This bounds a hang, it measures nothing.
    testTimeout: 60_000,
  },
});
