import { describe, expect, it } from 'vitest';
import { createMountRequestSchema, MASKED_SECRET, type Mount } from '@svc/contracts';
import {
  emptyMountValues,
  mountLocation,
  mountToValues,
  toCreateMountRequest,
  toUpdateMountRequest,
} from './mount-form.js';

const webdav: Mount = {
  id: 'm1',
  name: 'NAS',
  provider: 'webdav',
  config: {
    url: 'https://nas.example/dav',
    username: 'me',
    password: MASKED_SECRET,
    allowPrivateNetwork: true,
    downloadThreads: 4,
    timeoutSeconds: 60,
  },
  capabilities: {
    rangeReads: true,
    serverSideCopy: true,
    serverSideMove: true,
    directLinks: false,
    cdnHosts: [],
    downloadThreads: 4,
    chunkSizeBytes: 1,
    localFiles: false,
  },
  createdAt: '',
  updatedAt: '',
};

describe('mount form', () => {
  it('sends only the chosen provider config', () => {
    const values = emptyMountValues('local');
    values.name = ' Media ';
    values.config.root = '/srv/media';
    values.config.url = 'https://ignored';
    const request = toCreateMountRequest(values);
    expect(request).toEqual({ name: 'Media', provider: 'local', config: { root: '/srv/media' } });
    expect(createMountRequestSchema.safeParse(request).success).toBe(true);
  });

  it('leaves empty WebDAV credentials out and passes the schema', () => {
    const values = emptyMountValues('webdav');
    values.name = 'dav';
    values.config.url = 'https://dav.example/root';
    const request = toCreateMountRequest(values);
    expect(request.config).toEqual({
      url: 'https://dav.example/root',
      allowPrivateNetwork: false,
      downloadThreads: 1,
      timeoutSeconds: 30,
    });
    expect(createMountRequestSchema.safeParse(request).success).toBe(true);
  });

  it('an invalid WebDAV address fails the schema at config.url', () => {
    const values = emptyMountValues('webdav');
    values.name = 'dav';
    values.config.url = 'ftp://x';
    const result = createMountRequestSchema.safeParse(toCreateMountRequest(values));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['config', 'url']);
  });

  it('round-trips a stored mount, keeping the masked secret', () => {
    const values = mountToValues(webdav);
    expect(values.config.password).toBe(MASKED_SECRET);
    expect(toUpdateMountRequest(values, webdav)).toEqual({
      config: {
        url: 'https://nas.example/dav',
        username: 'me',
        password: MASKED_SECRET,
        allowPrivateNetwork: true,
        downloadThreads: 4,
        timeoutSeconds: 60,
      },
    });
    expect(toUpdateMountRequest({ ...values, name: 'NAS 2' }, webdav).name).toBe('NAS 2');
  });

  it('shows where a mount points', () => {
    expect(mountLocation(webdav)).toBe('https://nas.example/dav');
  });
});

describe('drive mounts in the mount form', () => {
  it('sends the chosen account and the drive folder, with the drive defaults', () => {
    const a = emptyMountValues('drive_a');
    a.name = 'Films';
    a.config.accountId = '7d1f2a3b-0000-4000-8000-000000000001';
    expect(toCreateMountRequest(a)).toEqual({
      name: 'Films',
      provider: 'drive_a',
      config: { accountId: '7d1f2a3b-0000-4000-8000-000000000001', root: '/' },
    });
    expect(createMountRequestSchema.safeParse(toCreateMountRequest(a)).success).toBe(true);
    const b = emptyMountValues('drive_b');
    b.name = 'B';
    b.config.accountId = '7d1f2a3b-0000-4000-8000-000000000002';
    b.config.rootId = 'folder-9';
    expect(toCreateMountRequest(b).config).toEqual({
      accountId: '7d1f2a3b-0000-4000-8000-000000000002',
      rootId: 'folder-9',
    });
    expect(createMountRequestSchema.safeParse(toCreateMountRequest(b)).success).toBe(true);
  });

  it('refuses a drive mount without an account', () => {
    const a = emptyMountValues('drive_a');
    a.name = 'Films';
    expect(createMountRequestSchema.safeParse(toCreateMountRequest(a)).success).toBe(false);
  });
});
