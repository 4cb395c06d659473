import { z } from 'zod';
import {
  createLibraryRequestSchema,
  libraryDetailSchema,
  libraryIdParamsSchema,
  libraryScanResponseSchema,
  librarySchema,
  listItemsQuerySchema,
  listItemsResponseSchema,
  listLibrariesResponseSchema,
  scanStatusSchema,
  startScanRequestSchema,
  updateLibraryRequestSchema,
  type Library,
  type ScanStatus,
} from '@svc/contracts';
import type { AuditClient, AuditSource } from '../../platform/audit/audit-client.js';
import { settableFields } from '../../platform/audit/audit-details.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { ItemsService } from './items.service.js';
import type { LibrariesService } from './libraries.service.js';
import type { ScanService } from './scan.service.js';

/** The fields of a library an administrator sets (not its counts and scans), for the audit log. */
const settable = (library: Library) => settableFields(library, ['name', 'type', 'sources']);

/** Library management, items and scans: console accounts holding the menu permission `library`. */
export function registerLibrariesRoutes(
  app: AppServer,
  services: { libraries: LibrariesService; items: ItemsService; scans: ScanService; audit: AuditClient },
): void {
  const { libraries, items, scans, audit } = services;
  const target = (id: string) => ({ type: 'library', id });
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['library'] } } } as const;
  const recordScanStart = (request: AuditSource, scan: ScanStatus) =>
    audit.record(request, {
      action: 'library.scan-start',
      target: target(scan.libraryId),
      details: { mode: scan.mode, scanId: scan.id },
    });

  app.get(
    '/api/media/libraries',
    { config, schema: { response: { 200: listLibrariesResponseSchema } } },
    async () => libraries.list(),
  );
  app.post(
    '/api/media/libraries',
    { config, schema: { body: createLibraryRequestSchema, response: { 201: librarySchema } } },
    async (request, reply) => {
      const after = await libraries.create(request.body);
      await audit.record(request, {
        action: 'library.create',
        target: target(after.id),
        before: null,
        after: settable(after),
      });
      if (after.lastScan) await recordScanStart(request, after.lastScan);
      return reply.status(201).send(after);
    },
  );
  app.get(
    '/api/media/libraries/:id',
    { config, schema: { params: libraryIdParamsSchema, response: { 200: libraryDetailSchema } } },
    async (request) => libraries.get(request.params.id),
  );
  app.patch(
    '/api/media/libraries/:id',
    {
      config,
      schema: {
        params: libraryIdParamsSchema,
        body: updateLibraryRequestSchema,
        response: { 200: librarySchema },
      },
    },
    async (request) =>
      audit.recordChange(
        request,
        { action: 'library.update', target: target(request.params.id), view: settable },
        () => libraries.get(request.params.id),
        () => libraries.update(request.params.id, request.body),
      ),
  );
  app.delete(
    '/api/media/libraries/:id',
    { config, schema: { params: libraryIdParamsSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      const before = await libraries.get(request.params.id);
      await libraries.delete(request.params.id);
      await audit.record(request, {
        action: 'library.delete',
        target: target(request.params.id),
        before: settable(before),
        after: null,
      });
      return reply.status(204).send(null);
    },
  );
  app.get(
    '/api/media/libraries/:id/items',
    {
      config,
      schema: {
        params: libraryIdParamsSchema,
        querystring: listItemsQuerySchema,
        response: { 200: listItemsResponseSchema },
      },
    },
    async (request) => items.list(request.params.id, request.query),
  );
  app.post(
    '/api/media/libraries/:id/scan',
    {
      config,
      schema: {
        params: libraryIdParamsSchema,
        body: startScanRequestSchema,
        response: { 202: scanStatusSchema },
      },
    },
    async (request, reply) => {
      const scan = await scans.start(request.params.id, request.body.mode);
      await recordScanStart(request, scan);
      return reply.status(202).send(scan);
    },
  );
  app.get(
    '/api/media/libraries/:id/scan',
    { config, schema: { params: libraryIdParamsSchema, response: { 200: libraryScanResponseSchema } } },
    async (request) => scans.status(request.params.id),
  );
}
