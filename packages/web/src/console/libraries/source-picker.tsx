import { useMemo, useState } from 'react';
import { Anchor, Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { endpoints, librarySourceInputSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { schemaMessage } from '../../forms/schema-messages.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { FolderPicker } from '../storage/folder-picker.js';
import { normaliseMountPath, toMediaPath } from '../storage/mount-path.js';
import { DEFAULT_STORAGE_NODE_ID, defaultStorageNode, storageNodeHeaders } from '../storage/storage-nodes.js';
import { StorageTargetContext, useStorageEndpointQuery } from '../storage/storage-query.js';
import { useStorageNodes } from '../storage/use-storage-nodes.js';
import type { SourceValue } from './library-form.js';

/** Mount choice and folder browsing (multi-select) on one storage node. */
function BrowseSources({ nodeId, onAdd }: { nodeId: string; onAdd: (sources: SourceValue[]) => void }) {
  const { t } = useTranslation('libraries');
  const mounts = useStorageEndpointQuery(endpoints.storage.listMounts, {});
  const [mountId, setMountId] = useState<string | null>(null);
  const [path, setPath] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const mount = mounts.data?.mounts.find((candidate) => candidate.id === mountId);

  if (mounts.isError) return <ErrorAlert error={mounts.error} onRetry={() => void mounts.refetch()} />;
  return (
    <Stack gap="xs">
      <Select
        label={t('sources.mount')}
        placeholder={t('sources.mountPlaceholder')}
        data={(mounts.data?.mounts ?? []).map((candidate) => ({
          value: candidate.id,
          label: candidate.name,
        }))}
        value={mountId}
        onChange={(value) => {
          setMountId(value);
          setPath('');
          setSelected([]);
        }}
        disabled={mounts.isPending}
        nothingFoundMessage={t('sources.noMounts')}
        data-testid="source-mount"
      />
      {mounts.data?.mounts.length === 0 && (
        <Text size="xs" c="dimmed">
          {t('sources.noMounts')}
        </Text>
      )}
      {mount && (
        <>
          <FolderPicker
            mountId={mount.id}
            mountName={mount.name}
            path={path}
            onPathChange={setPath}
            selection={{
              isSelected: (folder) => selected.includes(folder),
              toggle: (folder) =>
                setSelected((current) =>
                  current.includes(folder) ? current.filter((item) => item !== folder) : [...current, folder],
                ),
            }}
          />
          <Group justify="space-between" gap="xs">
            <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
              {selected.length > 0
                ? selected.map((folder) => toMediaPath(folder)).join(', ')
                : t('sources.noneSelected')}
            </Text>
            <Button
              size="xs"
              leftSection={<IconPlus size={14} />}
              disabled={selected.length === 0}
              onClick={() => {
                onAdd(selected.map((folder) => ({ nodeId, mountId: mount.id, path: folder })));
                setSelected([]);
              }}
              data-testid="source-add-selected"
            >
              {t('sources.addSelected', { count: selected.length })}
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}

/** A source typed in: for accounts without the `storage` permission, or a path not browsable. */
function TypedSource({ nodeId, onAdd }: { nodeId: string; onAdd: (sources: SourceValue[]) => void }) {
  const { t } = useTranslation('libraries');
  const [mountId, setMountId] = useState('');
  const [path, setPath] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const add = () => {
    const result = librarySourceInputSchema.safeParse({
      nodeId,
      mountId: mountId.trim(),
      path: toMediaPath(path),
    });
    if (!result.success) {
      const next: Record<string, string> = {};
      for (const issue of result.error.issues) next[String(issue.path[0])] ??= schemaMessage(issue.message);
      setErrors(next);
      return;
    }
    setErrors({});
    onAdd([{ nodeId, mountId: mountId.trim(), path: normaliseMountPath(path) }]);
    setPath('');
  };
  return (
    <Stack gap="xs">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <TextInput
          label={t('sources.mountId')}
          description={t('sources.mountIdHint')}
          value={mountId}
          onChange={(event) => setMountId(event.currentTarget.value)}
          error={errors.mountId}
          data-testid="source-mount-id"
        />
        <TextInput
          label={t('sources.path')}
          description={t('sources.pathHint')}
          placeholder="/Movies"
          value={path}
          onChange={(event) => setPath(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              add();
            }
          }}
          error={errors.path}
          data-testid="source-path"
        />
      </SimpleGrid>
      {errors.nodeId && (
        <Text size="xs" c="red">
          {errors.nodeId}
        </Text>
      )}
      <Group justify="flex-end">
        <Button size="xs" leftSection={<IconPlus size={14} />} onClick={add} data-testid="source-add-typed">
          {t('sources.add')}
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * Chooses library sources: a storage node (when there is a choice), then folders by browsing its mounts;
 * or typing a mount id and path — the only way without the `storage` permission.
 */
export function SourcePicker({ onAdd }: { onAdd: (sources: SourceValue[]) => void }) {
  const { t } = useTranslation('libraries');
  const session = useSession();
  const canBrowse = session.can('storage');
  const nodes = useStorageNodes();
  const [chosenNode, setChosenNode] = useState<string | undefined>();
  const [typing, setTyping] = useState(!canBrowse);
  const nodeId = chosenNode ?? (nodes.known ? defaultStorageNode(nodes.options) : DEFAULT_STORAGE_NODE_ID);
  const target = useMemo(
    () => ({ nodeId, headers: storageNodeHeaders(nodeId, nodes.several) }),
    [nodeId, nodes.several],
  );

  return (
    <Paper withBorder p="sm" data-testid="source-picker">
      <Stack gap="xs">
        {nodes.known && nodes.options.length > 0 ? (
          nodes.several && (
            <Select
              label={t('sources.node')}
              data={nodes.options.map((option) => ({
                value: option.nodeId,
                label: `${option.name} (${option.nodeId})`,
              }))}
              value={nodeId}
              onChange={(value) => value && setChosenNode(value)}
              allowDeselect={false}
              data-testid="source-node"
            />
          )
        ) : (
          <TextInput
            label={t('sources.nodeId')}
            description={t('sources.nodeIdHint')}
            value={nodeId}
            onChange={(event) => setChosenNode(event.currentTarget.value.trim())}
            data-testid="source-node-id"
          />
        )}
        <StorageTargetContext.Provider value={target}>
          {typing ? (
            <TypedSource nodeId={nodeId} onAdd={onAdd} />
          ) : (
            <BrowseSources nodeId={nodeId} onAdd={onAdd} />
          )}
        </StorageTargetContext.Provider>
        {canBrowse ? (
          <Anchor
            component="button"
            type="button"
            size="xs"
            onClick={() => setTyping((current) => !current)}
            data-testid="source-mode-toggle"
          >
            {typing ? t('sources.browseInstead') : t('sources.typeInstead')}
          </Anchor>
        ) : (
          <Text size="xs" c="dimmed">
            {t('sources.noStoragePermission')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
