export * from "./client";
export * from "./dev-secrets";
export * from "./embedded";
export * from "./event-log";
export * from "./id-generator";
export * from "./migrate";
export * as schema from "./schema";
