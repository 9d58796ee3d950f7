/**
 * An answer body that is JSON already (a run's detail, assembled from the JSON stored in its
 * row): `route()` sends its bytes as they are, without parsing and serializing them again, unless
 * the request selects fields (`include` / `exclude`), which need the object.
 */
export class JsonBytes {
  constructor(readonly parts: readonly Buffer[]) {}

  get length(): number {
    return this.parts.reduce((n, p) => n + p.length, 0);
  }

  toString(): string {
    return Buffer.concat(this.parts).toString();
  }
}
