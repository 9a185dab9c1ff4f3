/**
 * Growing the engine's typed columns: `array` itself when it holds `size` elements, else a copy with
 * room for at least `size`, doubling so that growing one element at a time stays linear. One function
 * per element type keeps each call site monomorphic in the walk's hot loops.
 */

export function growFloat64(array: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const next = new Float64Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export function growInt32(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const next = new Int32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export function growUint32(array: Uint32Array<ArrayBuffer>, size: number): Uint32Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const next = new Uint32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export function growUint8(array: Uint8Array<ArrayBuffer>, size: number): Uint8Array<ArrayBuffer> {
  if (size <= array.length) return array;
  const next = new Uint8Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}
