// The set-up most integration suites share: the fixture app and one service, started before the
// suite's tests and stopped after them.
import { afterAll, beforeAll } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, type TestService } from './testService.js';

export interface ServiceSuite {
  /** The running service (throws before beforeAll ran). */
  readonly service: TestService;
  /** The fixture app. */
  readonly fixture: FixtureServer;
}

/** Registers beforeAll/afterAll for a fixture app and a service with these config overrides. */
export function useServiceSuite(overrides: Parameters<typeof startTestService>[0] = {}): ServiceSuite {
  let service: TestService | undefined;
  let fixture: FixtureServer | undefined;
  beforeAll(async () => {
    fixture = await startFixtureServer();
    service = await startTestService(overrides);
  });
  afterAll(async () => {
    await service?.close();
    await fixture?.close();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} is used before beforeAll started it`);
    return value;
  };
  return {
    get service() {
      return started(service, 'service');
    },
    get fixture() {
      return started(fixture, 'fixture app');
    },
  };
}
