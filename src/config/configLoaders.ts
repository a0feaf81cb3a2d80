// What the loaders of config*.ts share: the two functions loadConfig hands them, and the cross-key
// check of a cap on one item against the cap on all of them together.

/** loadConfig's whole-number reader of `key` between min and max; it throws a ConfigError naming the key. */
export type ReadWholeNumber<K extends string> = (key: K, min: number, max: number) => number;

/** Makes the ConfigError of a cross-key check, naming `key`. */
export type RefuseKey<K extends string> = (key: K, message: string) => Error;

/**
 * Refuses a cap on one `item` (the key `oneKey`, value `one`) over the cap on all of them together
 * (`allKey`, `all`): no single item could ever be taken whole.
 */
export function checkOneWithinAll<K extends string>(
  refuse: RefuseKey<K>,
  item: string,
  [oneKey, one]: readonly [K, number],
  [allKey, all]: readonly [string, number],
): void {
  if (one > all)
    throw refuse(
      oneKey,
      `${one} is over ${allKey} (${all}): one ${item} cannot be more than all of them together`,
    );
}
