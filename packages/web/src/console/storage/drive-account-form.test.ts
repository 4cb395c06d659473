import { describe, expect, it } from 'vitest';
import { createDriveAccountRequestSchema, MASKED_SECRET, type DriveAccount } from '@svc/contracts';
import {
  driveAccountToValues,
  emptyDriveAccountValues,
  toCreateDriveAccountRequest,
  toUpdateDriveAccountRequest,
} from './drive-account-form.js';

const stored: DriveAccount = {
  id: '7d1f2a3b-0000-4000-8000-000000000001',
  name: 'Home drive',
  kind: 'drive_a',
  config: {
    url: 'https://alist.example',
    token: MASKED_SECRET,
    userAgent: 'Agent/1',
    allowPrivateNetwork: false,
    timeoutSeconds: 30,
  },
  mountCount: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('drive account form', () => {
  it('sends the chosen drive’s fields only, as the API schema takes them', () => {
    const a = emptyDriveAccountValues('drive_a');
    a.name = ' Home ';
    a.config = { ...a.config, url: 'https://alist.example ', secret: 's3cret', cdnHost: 'ignored' };
    const request = toCreateDriveAccountRequest(a);
    expect(request).toEqual({
      name: 'Home',
      kind: 'drive_a',
      config: {
        url: 'https://alist.example',
        token: 's3cret',
        allowPrivateNetwork: false,
        timeoutSeconds: 30,
      },
    });
    expect(createDriveAccountRequestSchema.safeParse(request).success).toBe(true);
    const b = emptyDriveAccountValues('drive_b');
    b.name = 'B';
    b.config = { ...b.config, url: 'https://api.b.example', secret: 'tok', cdnHost: 'cdn.b.example' };
    expect(toCreateDriveAccountRequest(b).config).toEqual({
      url: 'https://api.b.example',
      accessToken: 'tok',
      cdnHost: 'cdn.b.example',
      cdnScheme: 'https',
      allowPrivateNetwork: false,
      timeoutSeconds: 30,
    });
    expect(createDriveAccountRequestSchema.safeParse(toCreateDriveAccountRequest(b)).success).toBe(true);
  });

  it('keeps a stored secret masked on edit and sends the mask back', () => {
    const values = driveAccountToValues(stored);
    expect(values.config.secret).toBe(MASKED_SECRET);
    expect(toUpdateDriveAccountRequest(values, stored)).toEqual({
      config: {
        url: 'https://alist.example',
        token: MASKED_SECRET,
        userAgent: 'Agent/1',
        allowPrivateNetwork: false,
        timeoutSeconds: 30,
      },
    });
  });
});
