/**
 * Reads the code's own logic guarantees: an index inside its array, a key just put in a map, a field an
 * earlier step filled. With `noUncheckedIndexedAccess` such a read types as `T | undefined`; these helpers
 * give the `T` and, should the guarantee ever break, throw an InternalError that names what was missing
 * instead of letting `undefined` flow on as a silent NaN or a later TypeError.
 */

/** A broken internal guarantee: a bug in this tool, never bad input. */
export class InternalError extends Error {
  constructor(message: string) {
    super(`internal error: ${message}`)
    this.name = 'InternalError'
  }
}

/** `value`, which `why` says cannot be null or undefined here; throws InternalError if it is. */
export function must<T>(value: T | null | undefined, why: string): T {
  if (value === undefined || value === null) throw new InternalError(why)
  return value
}

/**
 * `items[i]` for an index the caller keeps inside the array (0 ≤ i < length; no negative indexing, unlike
 * Array.prototype.at). Throws InternalError for an index outside it. Not for arrays whose elements may
 * themselves be undefined.
 */
export function at<T>(items: ArrayLike<T>, i: number): T {
  const v = items[i]
  if (v === undefined) throw outside(i, items.length)
  return v
}

/*
 * at() for numbers, one for each kind of array: V8 keeps an element read fast while the reads it has seen
 * at one place are of few kinds of array, and at() reads every kind the code has. Hot numeric loops use these.
 */

/** `items[i]` of a Float64Array, for an index the caller keeps inside it. */
export function f64At(items: Float64Array, i: number): number {
  const v = items[i]
  if (v === undefined) throw outside(i, items.length)
  return v
}

/** `items[i]` of an array of numbers, for an index the caller keeps inside it. */
export function numAt(items: readonly number[], i: number): number {
  const v = items[i]
  if (v === undefined) throw outside(i, items.length)
  return v
}

function outside(i: number, length: number): InternalError {
  return new InternalError(`index ${i} outside an array of ${length}`)
}

/** The first element of an array the caller knows is not empty. */
export function first<T>(items: readonly T[]): T {
  return at(items, 0)
}

/** The last element of an array the caller knows is not empty. */
export function last<T>(items: readonly T[]): T {
  return at(items, items.length - 1)
}
