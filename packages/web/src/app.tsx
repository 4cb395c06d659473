import { useEffect, useState } from 'react';
import { capabilitiesResponseSchema, type CapabilitiesResponse } from '@svc/contracts';

type State =
  { kind: 'loading' } | { kind: 'up'; capabilities: CapabilitiesResponse } | { kind: 'down'; reason: string };

/** Until the console arrives, the entrance page shows whether the service answers and in which edition. */
export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/config/deployment/capabilities', { signal: controller.signal })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setState({ kind: 'up', capabilities: capabilitiesResponseSchema.parse(await response.json()) });
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setState({ kind: 'down', reason: (error as Error).message });
      });
    return () => controller.abort();
  }, []);

  return (
    <main
      style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '4rem auto', padding: '0 1rem' }}
    >
      <h1>SVC Media</h1>
      {state.kind === 'loading' && <p>Checking the service…</p>}
      {state.kind === 'up' && (
        <p data-testid="service-status">
          The service is up: edition {state.capabilities.edition}, deployment mode{' '}
          {state.capabilities.deploymentMode}.
        </p>
      )}
      {state.kind === 'down' && <p role="alert">The service does not answer ({state.reason}).</p>}
    </main>
  );
}
