import { Checkbox, Radio, SimpleGrid, Stack, Switch } from '@mantine/core';
import type { DelegablePermission, DriveAPlayMode } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import type { PermissionChoice } from './user-permissions.js';

const DRIVE_A_MODES: DriveAPlayMode[] = ['proxy', 'redirect'];

/** The delegable permissions as checkboxes; keys the acting account may not grant are shown but locked. */
export function PermissionCheckboxes({
  choices,
  value,
  onChange,
  error,
  readOnly = false,
}: {
  choices: readonly PermissionChoice[];
  value: readonly DelegablePermission[];
  onChange: (value: DelegablePermission[]) => void;
  error?: string | undefined;
  readOnly?: boolean;
}) {
  const { t } = useTranslation('users');
  return (
    <Checkbox.Group
      label={t('form.permissions')}
      description={t('form.permissionsHelp')}
      value={[...value]}
      onChange={onChange}
      error={error}
      data-testid="user-permissions"
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" mt="xs">
        {choices.map((choice) => (
          <Checkbox
            key={choice.key}
            value={choice.key}
            label={t(`permission.${choice.key}`)}
            disabled={readOnly || !choice.grantable}
            description={readOnly || choice.grantable ? undefined : t('form.notGrantable')}
            data-testid={`permission-${choice.key}`}
          />
        ))}
      </SimpleGrid>
    </Checkbox.Group>
  );
}

/** Web playback switch and DRIVE_A play mode, as in the create and the edit form. */
export function PlaybackFields({
  webPlayback,
  driveAPlayMode,
  onWebPlayback,
  onDriveAPlayMode,
  disabled = false,
}: {
  webPlayback: boolean;
  driveAPlayMode: DriveAPlayMode;
  onWebPlayback: (value: boolean) => void;
  onDriveAPlayMode: (value: DriveAPlayMode) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation('users');
  return (
    <Stack gap="md">
      <Switch
        label={t('form.webPlayback')}
        description={t('form.webPlaybackHelp')}
        checked={webPlayback}
        disabled={disabled}
        onChange={(event) => onWebPlayback(event.currentTarget.checked)}
        data-testid="user-form-web-playback"
      />
      <Radio.Group
        label={t('form.driveAPlayMode')}
        description={t('form.driveAPlayModeHelp')}
        value={driveAPlayMode}
        onChange={onDriveAPlayMode}
        data-testid="user-form-drive-a"
      >
        <Stack gap="xs" mt="xs">
          {DRIVE_A_MODES.map((mode) => (
            <Radio
              key={mode}
              value={mode}
              disabled={disabled}
              label={t(`form.driveAMode.${mode}`)}
              data-testid={`drive-a-${mode}`}
            />
          ))}
        </Stack>
      </Radio.Group>
    </Stack>
  );
}
