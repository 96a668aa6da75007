// The dashboard's entry: the data-fetching client, the session, the router (app.tsx).
import { render } from 'preact';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './app.tsx';
import { rateLimitWaitMs, retryQuery } from './api.ts';
import { SessionProvider } from './session.tsx';
import { labelTableCells } from './table-labels.ts';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: true,
      retry: retryQuery,
      // A query refused by a rate limit asks again when the limit's window ends (Retry-After).
      refetchInterval: (query) => rateLimitWaitMs(query.state.error) ?? false,
    },
  },
});

render(
  <QueryClientProvider client={queryClient}>
    <SessionProvider>
      <App />
    </SessionProvider>
  </QueryClientProvider>,
  document.getElementById('app')!,
);
labelTableCells(document.getElementById('app')!);
