/**
 * The values every example shares, so that a test can put real ones in their place: the session id
 * and the origin of the fixture app (`npm run fixtures` serves it on port 8080).
 */
export const EXAMPLE_SESSION = 's_6f1c2a9e-4b7d-4e2a-9c31-8d5e0b7a4f12';
export const EXAMPLE_ORIGIN = 'http://127.0.0.1:8080';

/** The time the examples' timestamps show where one moment serves them all. */
export const EXAMPLE_TIME = '2026-11-24T04:26:00.609Z';

/** The fixture's saved download, as downloads.list lists it and page.goto answers the link that started it. */
export const EXAMPLE_DOWNLOAD = {
  download_id: 'd1',
  name: 'hello.txt',
  url: `${EXAMPLE_ORIGIN}/files/attachment.txt`,
  bytes: 43,
  mime: 'text/plain',
  state: 'saved',
  timestamp: EXAMPLE_TIME,
};
