import { Button, Drawer, Group } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowLeft } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { WindowQuery } from '../report-window.js';
import { DeviceUsers } from './device-users.js';
import type { Drill, OpenDrill } from './drill.js';
import { MediaWatchers } from './media-watchers.js';
import { UserDrilldown } from './user-drilldown.js';

function drillTitleKey(drill: Drill): string {
  if (drill.kind === 'user') return 'drill.userTitle';
  if (drill.kind === 'media') return 'drill.mediaTitle';
  return 'drill.deviceTitle';
}

function drillKey(drill: Drill): string {
  return JSON.stringify(drill);
}

/**
 * The drill-down in a side drawer. Drill-downs stack (a watcher of an item opens that user's analysis);
 * Back returns to the previous one, closing the drawer leaves them all.
 */
export function DrilldownDrawer({
  stack,
  reportWindow,
  onOpen,
  onBack,
  onClose,
}: {
  stack: Drill[];
  reportWindow: WindowQuery;
  onOpen: OpenDrill;
  onBack: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('reports');
  const phone = useMediaQuery('(max-width: 48em)');
  const drill = stack.at(-1);
  return (
    <Drawer
      opened={drill !== undefined}
      onClose={onClose}
      position="right"
      size={phone ? '100%' : 'min(1100px, 90vw)'}
      title={drill ? t(drillTitleKey(drill), { name: drill.name }) : ''}
      closeButtonProps={{ 'aria-label': t('common:close') }}
      data-testid="drilldown-drawer"
    >
      {drill && (
        <>
          {stack.length > 1 && (
            <Group mb="sm">
              <Button
                variant="subtle"
                size="xs"
                leftSection={<IconArrowLeft size={14} />}
                onClick={onBack}
                data-testid="drill-back"
              >
                {t('drill.back')}
              </Button>
            </Group>
          )}
          {drill.kind === 'user' && <UserDrilldown key={drillKey(drill)} userId={drill.userId} />}
          {drill.kind === 'media' && (
            <MediaWatchers
              key={drillKey(drill)}
              mediaId={drill.mediaId}
              reportWindow={reportWindow}
              onOpen={onOpen}
            />
          )}
          {drill.kind === 'client' && (
            <DeviceUsers
              key={drillKey(drill)}
              target={
                drill.deviceName === undefined
                  ? { client: drill.client }
                  : { client: drill.client, deviceName: drill.deviceName }
              }
              reportWindow={reportWindow}
              onOpen={onOpen}
            />
          )}
          {drill.kind === 'platform' && (
            <DeviceUsers
              key={drillKey(drill)}
              target={{ platform: drill.platform }}
              reportWindow={reportWindow}
              onOpen={onOpen}
            />
          )}
        </>
      )}
    </Drawer>
  );
}
