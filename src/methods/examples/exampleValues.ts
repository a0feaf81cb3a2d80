/**
 * The values every example shares, so that a test can put real ones in their place: the session id
 * and the origin of the fixture app (`npm run fixtures` serves it on port 8080).
 */
export const EXAMPLE_SESSION = 's_6f1c2a9e-4b7d-4e2a-9c31-8d5e0b7a4f12';
export const EXAMPLE_ORIGIN = 'http://127.0.0.1:8080';
