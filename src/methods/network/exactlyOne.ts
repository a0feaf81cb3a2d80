// The rule "exactly one of two params" that network.throttle and network.unroute share: their
// schemas keep both params optional (a top-level oneOf would not publish as named params), so the
// handler checks it and refuses in the shape of Ajv's own oneOf error.
import { ServiceError } from '../../errors/serviceError.js';

/**
 * Throws INVALID_PARAMS when `params` gives both or neither of `first` and `second`; `give` is the
 * message's advice (e.g. 'preset or custom').
 */
export function requireExactlyOne<P extends object>(
  method: string,
  params: P,
  first: keyof P & string,
  second: keyof P & string,
  give: string,
): void {
  if ((params[first] === undefined) === (params[second] === undefined))
    throw new ServiceError('INVALID_PARAMS', `Invalid params for ${method}: give ${give}.`, {
      method,
      errors: [
        {
          path: '/',
          message: `must have exactly one of ${first} and ${second}`,
          keyword: 'oneOf',
          params: {},
        },
      ],
    });
}
