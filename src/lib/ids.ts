const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids are UUIDs. A string that is not one cannot name any object, so lookups answer "not found"
 * without asking the database (which would reject the cast).
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
