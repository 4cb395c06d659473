import type { DriveAccount, DriveKind } from '@svc/contracts';

/** The drive-account form: the fields of both drives; only the chosen drive's are sent. */
export interface DriveAccountFormValues {
  name: string;
  kind: DriveKind;
  config: {
    url: string;
    /** DRIVE_A `token` or DRIVE_B `accessToken`; MASKED_SECRET keeps the stored one. */
    secret: string;
    folderPassword: string;
    cdnHost: string;
    cdnScheme: 'https' | 'http';
    userAgent: string;
    allowPrivateNetwork: boolean;
    timeoutSeconds: number;
  };
}

export function emptyDriveAccountValues(kind: DriveKind): DriveAccountFormValues {
  return {
    name: '',
    kind,
    config: {
      url: '',
      secret: '',
      folderPassword: '',
      cdnHost: '',
      cdnScheme: 'https',
      userAgent: '',
      allowPrivateNetwork: false,
      timeoutSeconds: 30,
    },
  };
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A stored account in the form: its secrets stay masked (sending the mask back keeps them). */
export function driveAccountToValues(account: DriveAccount): DriveAccountFormValues {
  const config = account.config;
  return {
    name: account.name,
    kind: account.kind,
    config: {
      url: text(config.url),
      secret: text(account.kind === 'drive_a' ? config.token : config.accessToken),
      folderPassword: text(config.folderPassword),
      cdnHost: text(config.cdnHost),
      cdnScheme: config.cdnScheme === 'http' ? 'http' : 'https',
      userAgent: text(config.userAgent),
      allowPrivateNetwork: config.allowPrivateNetwork === true,
      timeoutSeconds: typeof config.timeoutSeconds === 'number' ? config.timeoutSeconds : 30,
    },
  };
}

/** The account config as the API takes it (empty optional texts left out). */
export function driveAccountConfig(values: DriveAccountFormValues): Record<string, unknown> {
  const { config } = values;
  const common = {
    url: config.url.trim(),
    ...(config.userAgent.trim() ? { userAgent: config.userAgent.trim() } : {}),
    allowPrivateNetwork: config.allowPrivateNetwork,
    timeoutSeconds: config.timeoutSeconds,
  };
  if (values.kind === 'drive_a') {
    return {
      ...common,
      token: config.secret,
      ...(config.folderPassword ? { folderPassword: config.folderPassword } : {}),
    };
  }
  return {
    ...common,
    accessToken: config.secret,
    cdnHost: config.cdnHost.trim(),
    cdnScheme: config.cdnScheme,
  };
}

/** POST /api/storage/drive-accounts body (checked with createDriveAccountRequestSchema). */
export function toCreateDriveAccountRequest(values: DriveAccountFormValues) {
  return { name: values.name.trim(), kind: values.kind, config: driveAccountConfig(values) };
}

/** PATCH body: the name when it changed and always the complete config (the API replaces it whole). */
export function toUpdateDriveAccountRequest(values: DriveAccountFormValues, original: DriveAccount) {
  const name = values.name.trim();
  return { ...(name !== original.name ? { name } : {}), config: driveAccountConfig(values) };
}
