import { endpoints, type DriveAccount } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import { settableFields } from '../../../platform/audit/audit-details.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { DriveAccountsService } from './drive-accounts.service.js';

/** What an administrator sets on an account (secrets masked), for the audit log. */
const settable = (account: DriveAccount) => settableFields(account, ['name', 'kind', 'config']);

/** Drive accounts: /api/storage/drive-accounts[/:accountId]. */
export function registerDriveAccountRoutes(
  app: AppServer,
  accounts: DriveAccountsService,
  audit: AuditClient,
): void {
  const target = (id: string) => ({ type: 'drive-account', id });
  serve(app, endpoints.storage.listDriveAccounts, async () => ({ accounts: await accounts.list() }));
  serve(app, endpoints.storage.createDriveAccount, async (request) => {
    const after = await accounts.create(identityOf(request), request.body);
    await audit.record(request, {
      action: 'drive-account.create',
      target: target(after.id),
      before: null,
      after: settable(after),
    });
    return after;
  });
  serve(app, endpoints.storage.updateDriveAccount, async (request) =>
    audit.recordChange(
      request,
      { action: 'drive-account.update', target: target(request.params.accountId), view: settable },
      () => accounts.describe(request.params.accountId),
      () => accounts.update(identityOf(request), request.params.accountId, request.body),
    ),
  );
  serve(app, endpoints.storage.deleteDriveAccount, async (request, reply) => {
    const before = await accounts.describe(request.params.accountId);
    await accounts.delete(identityOf(request), request.params.accountId);
    await audit.record(request, {
      action: 'drive-account.delete',
      target: target(before.id),
      before: settable(before),
      after: null,
    });
    return reply.send();
  });
}
