export * from "./api-keys";
export * from "./canonical-json";
export * from "./hash-chain";
export * from "./hashing";
export * from "./ids";
export * from "./matters";
export * from "./money";
export * from "./time";
