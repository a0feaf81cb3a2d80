// Where the examples find the service and the fixture app; the defaults match the README's quick
// start (API_KEY=dev-key-123 npm start, npm run fixtures).
function env(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

export const serviceUrl = env('SERVICE_URL', 'http://127.0.0.1:3337');
export const apiKey = env('API_KEY', 'dev-key-123');
export const fixtureUrl = env('FIXTURE_URL', 'http://localhost:8080').replace(/\/+$/, '');
