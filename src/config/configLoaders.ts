// What the loaders of config*.ts share: the two functions loadConfig hands them, and the reading of
// a table of caps checked across keys (a cap on one item against the cap on all of them together).

/** loadConfig's whole-number reader of `key` between min and max; it throws a ConfigError naming the key. */
export type ReadWholeNumber<K extends string> = (key: K, min: number, max: number) => number;

/** Makes the ConfigError of a cross-key check, naming `key`. */
export type RefuseKey<K extends string> = (key: K, message: string) => Error;

/** A key read as a whole number: the key, and the least and the most it may be. */
export type WholeNumberKey<K extends string> = readonly [key: K, min: number, max: number];

/** A cap on one `item` (field `one`) and the cap on all of them together (field `all`). */
export interface OneWithinAll<F extends string> {
  item: string;
  one: F;
  all: F;
}

/**
 * Reads each field's key with loadConfig's reader, in the table's order, then refuses the cap on
 * one item over the cap on all of them together: no single item could ever be taken whole.
 */
export function readCaps<F extends string, K extends string>(
  read: ReadWholeNumber<K>,
  refuse: RefuseKey<K>,
  keys: Readonly<Record<F, WholeNumberKey<K>>>,
  { item, one, all }: OneWithinAll<NoInfer<F>>,
): Record<F, number> {
  // fromEntries types its keys as any string: they are the table's fields, each read here in order.
  const values = Object.fromEntries(
    Object.entries<WholeNumberKey<K>>(keys).map(([field, [key, min, max]]) => [field, read(key, min, max)]),
  ) as Record<F, number>;
  const [oneKey] = keys[one];
  const [allKey] = keys[all];
  if (values[one] > values[all])
    throw refuse(
      oneKey,
      `${values[one]} is over ${allKey} (${values[all]}): one ${item} cannot be more than all of them together`,
    );
  return values;
}
