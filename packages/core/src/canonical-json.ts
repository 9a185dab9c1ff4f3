/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 * Keys sorted by UTF-16 code units, no whitespace, numbers in ECMAScript shortest form,
 * strings escaped as JSON.stringify does (which is the JCS escaping).
 */
export function canonicalize(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("JCS cannot represent a non-finite number");
      return JSON.stringify(value);
    case "string":
      assertWellFormed(value);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) {
        return `[${value.map((item) => (item === undefined ? "null" : canonicalize(item))).join(",")}]`;
      }
      if (value instanceof Date) return canonicalize(value.toISOString());
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${canonicalize(key)}:${canonicalize(record[key])}`).join(",")}}`;
    }
    default:
      throw new TypeError(`JCS cannot represent a value of type ${typeof value}`);
  }
}

function assertWellFormed(text: string): void {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) throw new TypeError("JCS: lone surrogate in string");
      i++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      throw new TypeError("JCS: lone surrogate in string");
    }
  }
}
