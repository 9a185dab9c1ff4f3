export * from "./trpc-client";
