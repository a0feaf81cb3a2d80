// The set-up most integration suites share: the fixture app and one service, started before the
// suite's tests and stopped after them.
import { afterAll, beforeAll } from 'vitest';
import { startDecoyServer, startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { startTestService, type TestService } from './testService.js';

export interface ServiceSuite {
  /** The running service (throws before beforeAll ran). */
  readonly service: TestService;
  /** The fixture app. */
  readonly fixture: FixtureServer;
  /** Opens a session on a page of the fixture app (waiting for load) and returns its id. */
  open(path: string): Promise<string>;
  /**
   * A session recorded for replay (session.create replay: true) in which an agent went to /form,
   * filled #name with Ada and clicked #greet: three actions with a picture each. Returns its id.
   */
  recordForm(): Promise<string>;
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
    async open(path) {
      const running = started(service, 'service');
      const url = `${started(fixture, 'fixture app').url}${path}`;
      const { session_id } = await running.call<{ session_id: string }>('session.create', {});
      await running.call('page.goto', { session_id, url, waitUntil: 'load' });
      return session_id;
    },
    async recordForm() {
      const running = started(service, 'service');
      const url = `${started(fixture, 'fixture app').url}/form`;
      const { session_id } = await running.call<{ session_id: string }>('session.create', { replay: true });
      await running.call('page.goto', { session_id, url, waitUntil: 'load' });
      await running.call('page.fill', { session_id, selector: '#name', value: 'Ada' });
      await running.call('page.click', { session_id, selector: '#greet' });
      return session_id;
    },
  };
}

export interface FixtureAndDecoy {
  /** The fixture app. */
  readonly fixture: FixtureServer;
  /** A server on 127.0.0.2, outside the allow-list: its hits must stay empty. */
  readonly decoy: FixtureServer;
}

/** Registers beforeAll/afterAll for the fixture app and a decoy, for suites that start their own services. */
export function useFixtureAndDecoy(): FixtureAndDecoy {
  let fixture: FixtureServer | undefined;
  let decoy: FixtureServer | undefined;
  beforeAll(async () => {
    fixture = await startFixtureServer();
    decoy = await startDecoyServer();
  });
  afterAll(async () => {
    await fixture?.close();
    await decoy?.close();
  });
  const started = (value: FixtureServer | undefined, what: string): FixtureServer => {
    if (value === undefined) throw new Error(`the ${what} is used before beforeAll started it`);
    return value;
  };
  return {
    get fixture() {
      return started(fixture, 'fixture app');
    },
    get decoy() {
      return started(decoy, 'decoy');
    },
  };
}
