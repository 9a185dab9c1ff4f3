export * from "./app-router";
export * from "./trpc-client";
export * from "./verify-events";
export * from "./webhooks";
