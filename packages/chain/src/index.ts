export * from "./evm-provider";
export * from "./issuer-file";
export * from "./label-store";
