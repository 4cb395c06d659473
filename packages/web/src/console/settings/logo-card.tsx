import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  Box,
  FileInput,
  Group,
  Image,
  Loader,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPhotoUp } from '@tabler/icons-react';
import {
  endpoints,
  IMAGE_CONTENT_TYPES,
  logoUrlSchema,
  type AdminBrandingResponse,
  type SetLogoRequest,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpoint, useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import {
  checkLogoFile,
  LOGO_SNIFF_BYTES,
  logoDraftFrom,
  logoRequestFrom,
  type LogoDraft,
  type LogoMode,
} from './logo-draft.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { CardActions } from './setting-card.js';
import { usePublicBrandingRefresh } from './use-public-branding-refresh.js';

const CARD = 'logo';
const MODES: LogoMode[] = ['upload', 'url', 'none'];

function LogoPreview({ src, label, testId }: { src: string; label: string; testId: string }) {
  return (
    <Box>
      <Text size="xs" c="dimmed" mb={4}>
        {label}
      </Text>
      <Image
        src={src}
        alt={label}
        h={64}
        w="auto"
        maw="100%"
        fit="contain"
        radius="sm"
        data-testid={testId}
      />
    </Box>
  );
}

function LogoForm({
  branding,
  onDirtyChange,
}: {
  branding: AdminBrandingResponse;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const call = useEndpoint();
  const refreshBranding = usePublicBrandingRefresh();
  // The logo in force: the save's answer at once, later refetches too.
  const [current, setCurrent] = useState<Pick<AdminBrandingResponse, 'logo' | 'logoUrl'>>(branding);
  const currentKey = JSON.stringify([branding.logo, branding.logoUrl]);
  const [shownKey, setShownKey] = useState(currentKey);
  if (currentKey !== shownKey) {
    setShownKey(currentKey);
    setCurrent(branding);
  }
  const [draft, setDraft] = useState<LogoDraft>(() => logoDraftFrom(branding.logo));
  const [file, setFile] = useState<File | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const [urlError, setUrlError] = useState<string | null>(null);
  // Object URLs of previews are released when replaced and when the card goes away.
  const previewUrl = useRef<string | null>(null);
  const setPreview = (url: string | null) => {
    if (previewUrl.current) URL.revokeObjectURL(previewUrl.current);
    previewUrl.current = url;
  };
  useEffect(() => () => setPreview(null), []);

  const request = logoRequestFrom(draft, current.logo);
  const dirty = request !== undefined;
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);

  const save = useEndpointMutation(
    (run, body: SetLogoRequest) => run(endpoints.user.setLogo, { body }),
    [endpoints.user.getAdminBranding],
  );

  const discard = () => {
    setDraft(logoDraftFrom(current.logo));
    setFile(null);
    setFileProblem(null);
    setUploadError(null);
    setUrlError(null);
    setPreview(null);
  };

  async function chooseFile(chosen: File | null) {
    setFile(chosen);
    setFileProblem(null);
    setUploadError(null);
    setDraft((current) => ({ ...current, upload: null }));
    setPreview(null);
    if (!chosen) return;
    let head: Uint8Array;
    try {
      head = new Uint8Array(await chosen.slice(0, LOGO_SNIFF_BYTES).arrayBuffer());
    } catch {
      setFileProblem(t('logo.problems.read'));
      return;
    }
    const check = checkLogoFile(chosen.size, head);
    if (!check.ok) {
      setFileProblem(t(`logo.problems.${check.problem}`));
      return;
    }
    setUploading(true);
    try {
      const uploaded = await call(endpoints.config.uploadImage, {
        rawBody: chosen,
        // The server decides the type from the bytes; the browser's guess is not sent.
        headers: { 'content-type': 'application/octet-stream' },
      });
      const objectUrl = URL.createObjectURL(chosen);
      setPreview(objectUrl);
      setDraft((current) => ({
        ...current,
        upload: { uploadId: uploaded.id, fileName: chosen.name, previewUrl: objectUrl },
      }));
    } catch (error) {
      setUploadError(error);
    } finally {
      setUploading(false);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!request) return;
    if (request.logo?.kind === 'url') {
      const checked = logoUrlSchema.safeParse(request.logo.url);
      if (!checked.success) {
        setUrlError(t('logo.urlInvalid'));
        return;
      }
    }
    save.mutate(request, {
      onSuccess: (answer) => {
        setCurrent(answer);
        setDraft(logoDraftFrom(answer.logo));
        setFile(null);
        setPreview(null);
        void refreshBranding();
        notifications.show({ color: 'green', message: t('saved', { card: t('logo.title') }) });
      },
    });
  };

  const typedUrl = draft.url.trim();
  const urlPreview = draft.mode === 'url' && logoUrlSchema.safeParse(typedUrl).success ? typedUrl : null;

  return (
    <form noValidate onSubmit={submit} data-testid="logo-form">
      <Stack gap="sm">
        {current.logoUrl ? (
          <LogoPreview src={current.logoUrl} label={t('logo.current')} testId="logo-current" />
        ) : (
          <Text size="sm" c="dimmed" data-testid="logo-none">
            {t('logo.noLogo')}
          </Text>
        )}
        <SegmentedControl
          aria-label={t('logo.mode')}
          value={draft.mode}
          onChange={(mode) => setDraft((current) => ({ ...current, mode }))}
          data={MODES.map((mode) => ({ value: mode, label: t(`logo.modes.${mode}`) }))}
          fullWidth
          data-testid="logo-mode"
        />
        {draft.mode === 'upload' && (
          <>
            <FileInput
              label={t('logo.file')}
              description={t('logo.fileHelp')}
              placeholder={t('logo.filePlaceholder')}
              accept={IMAGE_CONTENT_TYPES.join(',')}
              value={file}
              onChange={(chosen) => void chooseFile(chosen)}
              clearable
              leftSection={<IconPhotoUp size={16} />}
              error={fileProblem}
              disabled={uploading}
              data-testid="logo-file"
            />
            {uploading && (
              <Group gap="xs">
                <Loader size="xs" />
                <Text size="sm">{t('logo.uploading')}</Text>
              </Group>
            )}
            {uploadError ? <ErrorAlert error={uploadError} /> : null}
            {draft.upload && (
              <>
                <Text size="sm" data-testid="logo-uploaded">
                  {t('logo.uploaded', { name: draft.upload.fileName })}
                </Text>
                <LogoPreview src={draft.upload.previewUrl} label={t('logo.preview')} testId="logo-preview" />
              </>
            )}
          </>
        )}
        {draft.mode === 'url' && (
          <>
            <TextInput
              label={t('logo.url')}
              placeholder="https://…"
              value={draft.url}
              onChange={(event) => {
                const url = event.currentTarget.value;
                setUrlError(null);
                setDraft((current) => ({ ...current, url }));
              }}
              error={urlError}
              inputMode="url"
              data-testid="logo-url"
            />
            {urlPreview && <LogoPreview src={urlPreview} label={t('logo.preview')} testId="logo-preview" />}
          </>
        )}
        {draft.mode === 'none' && current.logo && (
          <Text size="sm" data-testid="logo-remove-hint">
            {t('logo.removeHint')}
          </Text>
        )}
        <CardActions
          id={CARD}
          dirty={dirty}
          saving={save.isPending}
          onReset={discard}
          canSave={dirty && !uploading}
          error={save.error}
        />
      </Stack>
    </form>
  );
}

/** The logo in the header and as favicon: an uploaded image (used only once this card is saved) or an address. */
export function LogoCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.user.getAdminBranding, {});
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('logo.title')}
      help={t('logo.help')}
      scope="immediate"
      query={query}
      skeletonRows={3}
      onDirtyChange={onDirtyChange}
    >
      {(branding, report) => <LogoForm branding={branding} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
