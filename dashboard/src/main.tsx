// The dashboard's entry: the data-fetching client, the session, the router (app.tsx).
import { render } from 'preact';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';
import { labelTableCells } from './table-labels.ts';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: true } },
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
