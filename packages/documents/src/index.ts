export * from "./fonts";
export * from "./packet-document";
export * from "./packet-json";
export * from "./packet-pdf";
export * from "./packet-zip";
