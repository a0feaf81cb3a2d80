import { errors as playwrightErrors } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TabCloseError } from '../../src/cdp/cdpErrors.js';
import { SessionLimitError, SessionNotFoundError } from '../../src/browser/engine/browserErrors.js';
import { ErrorWithData, ServiceError } from '../../src/errors/serviceError.js';
import { mapError, type ErrorScope } from '../../src/errors/mapError.js';

const scope = (params: Record<string, unknown> = {}): ErrorScope => ({
  method: 'page.text',
  params,
  browserReady: true,
  sessionOpen: true,
});

describe('mapError', () => {
  it('adds the method to an error a handler built without data', () => {
    const built = new ServiceError('LIMIT_REACHED', 'too big');
    const mapped = mapError(built, scope());
    expect(mapped.code).toBe(-32003);
    expect(mapped.message).toBe('too big');
    expect(mapped.data).toEqual({ method: 'page.text' });
  });

  it('adds the method beside the data a handler gave, and keeps the cause', () => {
    const cause = new Error('underlying');
    const built = new ServiceError('ACTION_FAILED', 'no such element', { selector: '#x' }, cause);
    const mapped = mapError(built, scope());
    expect(mapped.data).toEqual({ method: 'page.text', selector: '#x' });
    expect(mapped.cause).toBe(cause);
  });

  it('leaves an error that already names its method as it is', () => {
    const built = new ServiceError('METHOD_NOT_FOUND', 'Method not found: nope', { method: 'nope' });
    expect(mapError(built, scope())).toBe(built);
  });

  it('maps domain errors with the method and the call’s selector, url and timeout', () => {
    const missing = mapError(
      new SessionNotFoundError('s_1', 'expired'),
      scope({ selector: 'main', timeout: 5 }),
    );
    expect(missing.code).toBe(-32010);
    expect(missing.data).toMatchObject({
      method: 'page.text',
      selector: 'main',
      timeoutMs: 5,
      session_id: 's_1',
      reason: 'expired',
    });
    const full = mapError(new SessionLimitError(8, 1000), scope());
    expect(full.code).toBe(-32003);
    expect(full.data).toMatchObject({ method: 'page.text', limit: 'MAX_SESSIONS', maxSessions: 8 });
  });

  it('maps a tab that would not close to ACTION_FAILED with its id', () => {
    const mapped = mapError(new TabCloseError('T1', 'still open'), scope());
    expect(mapped.code).toBe(-32000);
    expect(mapped.data).toMatchObject({ method: 'page.text', tabId: 'T1' });
  });

  it('maps anything unknown to INTERNAL_ERROR without leaking its message', () => {
    const mapped = mapError(new Error('secret detail /etc/passwd'), scope());
    expect(mapped.code).toBe(-32603);
    expect(mapped.message).not.toContain('secret detail');
  });

  it("maps the error an ErrorWithData carries as alone, then adds its data (a failed call's trace_id)", () => {
    const timeout = new playwrightErrors.TimeoutError('locator.click: Timeout 300ms exceeded.');
    const mapped = mapError(new ErrorWithData(timeout, { trace_id: 't1' }), scope({ selector: '#x' }));
    expect(mapped.code).toBe(-32001);
    expect(mapped.data).toEqual({ method: 'page.text', selector: '#x', trace_id: 't1' });
    expect(mapped.cause).toBe(timeout);
    const own = mapError(
      new ErrorWithData(new ServiceError('LIMIT_REACHED', 'big'), { trace_refused: 'x' }),
      scope(),
    );
    expect(own.code).toBe(-32003);
    expect(own.data).toEqual({ method: 'page.text', trace_refused: 'x' });
  });
});
