import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { type Account, accountSchema, endpoints, type LoginResponse, type Permission } from '@svc/contracts';
import { z } from 'zod';
import { onUnauthorized, type Credentials } from '../api/client.js';
import { callEndpoint } from '../api/endpoint-client.js';

/** Which web app a session belongs to: each keeps its own tokens, so both can be open side by side. */
export type AppKind = 'console' | 'portal';

const storedSessionSchema = z.object({
  accessToken: z.string(),
  adminToken: z.string().optional(),
  user: accountSchema,
});
type StoredSession = z.infer<typeof storedSessionSchema>;

const storageKey = (app: AppKind) => `svc.session.${app}`;

function readSession(app: AppKind): StoredSession | undefined {
  try {
    const raw = localStorage.getItem(storageKey(app));
    if (!raw) return undefined;
    const parsed = storedSessionSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface SessionValue {
  app: AppKind;
  user: Account | undefined;
  credentials: Credentials | undefined;
  signIn(answer: LoginResponse): void;
  signOut(): Promise<void>;
  /** Refreshes the stored account (after the user's own data changed). */
  updateUser(user: Account): void;
  can(permission: Permission): boolean;
}

const SessionContext = createContext<SessionValue | undefined>(undefined);

export function SessionProvider({ app, children }: { app: AppKind; children: ReactNode }) {
  const [session, setSession] = useState<StoredSession | undefined>(() => readSession(app));
  const queryClient = useQueryClient();

  const store = useCallback(
    (next: StoredSession | undefined) => {
      if (next) localStorage.setItem(storageKey(app), JSON.stringify(next));
      else localStorage.removeItem(storageKey(app));
      setSession(next);
    },
    [app],
  );

  useEffect(() => {
    onUnauthorized((credentials) => {
      const current = readSession(app);
      if (credentials && current && current.accessToken === credentials.accessToken) {
        store(undefined);
        queryClient.clear();
      }
    });
    return () => onUnauthorized(undefined);
  }, [app, store, queryClient]);

  const value = useMemo<SessionValue>(() => {
    const credentials = session
      ? {
          accessToken: session.accessToken,
          ...(session.adminToken ? { adminToken: session.adminToken } : {}),
        }
      : undefined;
    return {
      app,
      user: session?.user,
      credentials,
      signIn(answer) {
        store({
          accessToken: answer.accessToken,
          ...('adminToken' in answer ? { adminToken: answer.adminToken } : {}),
          user: answer.user,
        });
      },
      async signOut() {
        if (credentials) {
          await callEndpoint(credentials, endpoints.user.logout).catch(() => undefined);
        }
        store(undefined);
        queryClient.clear();
      },
      updateUser(user) {
        if (session) store({ ...session, user });
      },
      can(permission) {
        return session?.user.permissions.includes(permission) ?? false;
      },
    };
  }, [app, session, store, queryClient]);

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
