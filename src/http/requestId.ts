import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** A caller's x-request-id is kept when it is a sane token; otherwise one is made. Echoed back. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const id = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.set('x-request-id', id);
  next();
}
