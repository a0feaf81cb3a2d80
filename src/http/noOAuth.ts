import express, { type Request, type Response, type Router } from 'express';

/**
 * Where OAuth clients look for an authorization server: RFC 9728 and RFC 8414 metadata (with or
 * without the resource's path after them), OpenID discovery, and the default endpoints the MCP
 * spec of 2025-03-26 falls back to when metadata is missing.
 */
const OAUTH_PATHS = ['/.well-known', '/authorize', '/token', '/register'];

/**
 * This service authenticates with an API key header and runs no OAuth: the paths OAuth clients
 * probe answer 404, before the key check, so a client asking "where do I sign in?" learns that
 * there is nowhere (a 401 there would read as "sign in first" and keep it looking).
 */
export function noOAuthRouter(): Router {
  const router = express.Router();
  router.all(
    OAUTH_PATHS.flatMap((p) => [p, `${p}/*rest`]),
    (_req: Request, res: Response) => {
      res.status(404).json({
        error: 'not found: this service uses no OAuth; send its API key in the x-api-key header',
      });
    },
  );
  return router;
}
