/** What a route's `prepare` reserved before its transaction opened. */
export interface Reservation {
  /** The operation did not use it (a replayed answer, a 4xx answer): give it back for a later request. */
  release(): void;
}
