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
      return canonicalString(value);
    case "object": {
      // Loops appending to one string: every event and every id of a trace result is hashed over this,
      // and building an array per object or list to join took nearly twice the time.
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (i > 0) out += ",";
          out += item === undefined ? "null" : canonicalize(item);
        }
        return `${out}]`;
      }
      if (value instanceof Date) return canonicalString(value.toISOString());
      return canonicalObject(value as Record<string, unknown>, undefined);
    }
    default:
      throw new TypeError(`JCS cannot represent a value of type ${typeof value}`);
  }
}

/**
 * `canonicalize` of `record` with the members named in `canonicalMembers` given as their canonical text
 * already: the same text as canonicalizing the record with those members as values. A large member can
 * so be canonicalized ahead of the moment the rest is known (an event's data before its chain is locked).
 */
export function canonicalizeWithMembers(
  record: Record<string, unknown>,
  canonicalMembers: Record<string, string>,
): string {
  return canonicalObject(record, canonicalMembers);
}

function canonicalObject(
  record: Record<string, unknown>,
  canonicalMembers: Record<string, string> | undefined,
): string {
  const keys = Object.keys(record);
  if (canonicalMembers !== undefined) {
    for (const key of Object.keys(canonicalMembers)) if (!Object.hasOwn(record, key)) keys.push(key);
  }
  keys.sort();
  let out = "{";
  for (const key of keys) {
    let text: string;
    if (canonicalMembers !== undefined && Object.hasOwn(canonicalMembers, key)) text = canonicalMembers[key]!;
    else {
      const item = record[key];
      if (item === undefined) continue;
      text = canonicalize(item);
    }
    if (out.length > 1) out += ",";
    out += `${canonicalString(key)}:${text}`;
  }
  return `${out}}`;
}

function canonicalString(text: string): string {
  if (!text.isWellFormed()) throw new TypeError("JCS: lone surrogate in string");
  return JSON.stringify(text);
}
