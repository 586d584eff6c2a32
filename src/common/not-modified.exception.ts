/** Thrown when `If-None-Match` matches; answered as a bodiless `304`. */
export class NotModifiedException extends Error {
  constructor(readonly etag: string) {
    super('Not Modified');
  }
}
