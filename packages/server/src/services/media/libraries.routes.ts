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
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { ItemsService } from './items.service.js';
import type { LibrariesService } from './libraries.service.js';
import type { ScanService } from './scan.service.js';

/** Library management, items and scans: console accounts holding the menu permission `library`. */
export function registerLibrariesRoutes(
  app: AppServer,
  services: { libraries: LibrariesService; items: ItemsService; scans: ScanService },
): void {
  const { libraries, items, scans } = services;
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['library'] } } } as const;

  app.get(
    '/api/media/libraries',
    { config, schema: { response: { 200: listLibrariesResponseSchema } } },
    async () => libraries.list(),
  );
  app.post(
    '/api/media/libraries',
    { config, schema: { body: createLibraryRequestSchema, response: { 201: librarySchema } } },
    async (request, reply) => reply.status(201).send(await libraries.create(request.body)),
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
    async (request) => libraries.update(request.params.id, request.body),
  );
  app.delete(
    '/api/media/libraries/:id',
    { config, schema: { params: libraryIdParamsSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      await libraries.delete(request.params.id);
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
    async (request, reply) => reply.status(202).send(await scans.start(request.params.id, request.body.mode)),
  );
  app.get(
    '/api/media/libraries/:id/scan',
    { config, schema: { params: libraryIdParamsSchema, response: { 200: libraryScanResponseSchema } } },
    async (request) => scans.status(request.params.id),
  );
}
