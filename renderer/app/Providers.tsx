import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { BridgeCallError } from "../state/bridge.js";

/** Errors a retry cannot fix (a refused key, a bad request, a missing item) are not retried. */
function shouldRetry(failures: number, err: unknown): boolean {
  if (err instanceof BridgeCallError && err.status >= 400 && err.status < 500) return false;
  if (err instanceof BridgeCallError && (err.code === "no_host" || err.code === "no_profile")) return false;
  return failures < 2;
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 5_000 },
      mutations: { retry: false },
    },
  });
}

export function Providers(props: { children: ReactNode; client?: QueryClient }) {
  const [client] = useState(() => props.client ?? makeQueryClient());
  return <QueryClientProvider client={client}>{props.children}</QueryClientProvider>;
}
