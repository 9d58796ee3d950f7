/**
 * How long an instance may go on using what it read about a user (an endpoint's target with its
 * owner's `disabled`, the owner's quota limits) without reading it again. An admin's change to a
 * user is announced to every instance (cluster/user-changes.ts), and the instance that made it
 * answers once the others have forgotten the user, or once this long has passed since the
 * commit: by then nothing read before the change is used anywhere, even by an instance that
 * missed the announcement.
 */
export const REMEMBERED_AT_MOST_MS = 1000;
