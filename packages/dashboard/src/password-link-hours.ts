// Apart from password-links.ts (the database): the `payments` command's help states it without loading that.
/** A link to set a password works once, within this many hours. */
export const PASSWORD_LINK_HOURS = 24;
