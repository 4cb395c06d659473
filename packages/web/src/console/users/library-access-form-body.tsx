import { MultiSelect, TagsInput, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { endpoints, libraryAccessModeSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { AccessModeRadios } from './access-mode-radios.js';
import type { LibraryAccessValues } from './library-access-form.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

const MODES = libraryAccessModeSchema.options;

export interface LibraryChoices {
  options: { value: string; label: string }[];
  /** The library list could be read (permission `library`): libraries are picked; otherwise ids are typed. */
  known: boolean;
  /** The ids of the libraries that exist (null while unknown). */
  ids: string[] | null;
}

/** The libraries to choose from, when the account may read the library list. */
export function useLibraryChoices(): LibraryChoices {
  const session = useSession();
  const allowed = session.can('library');
  const libraries = useEndpointQuery(endpoints.media.listLibraries, {}, { enabled: allowed });
  if (!allowed || libraries.isError) return { options: [], known: false, ids: null };
  const list = libraries.data?.libraries ?? [];
  return {
    options: list.map((library) => ({ value: library.id, label: library.name })),
    known: true,
    ids: libraries.data ? list.map((library) => library.id) : null,
  };
}

/**
 * The fields of a library access form (all libraries, or the ones chosen), for a user and for the default
 * of new users; the caller wraps them in its form and adds its save button.
 */
export function LibraryAccessFormBody({
  form,
  libraries,
  readOnly = false,
  saveError,
  modeMessages,
}: {
  form: UseFormReturnType<LibraryAccessValues>;
  libraries: LibraryChoices;
  readOnly?: boolean;
  saveError: unknown;
  /** Key prefix of the mode question (`<prefix>.mode`) and each mode's label and help (`<prefix>.modes.…`). */
  modeMessages: string;
}) {
  const { t } = useTranslation('users');
  const common = {
    label: t('libraryAccess.libraries'),
    disabled: readOnly,
    clearable: !readOnly,
    ...form.getInputProps('libraryIds'),
    'data-testid': 'library-access-libraries',
  };
  return (
    <>
      <AccessModeRadios
        input={form.getInputProps('mode')}
        modes={MODES}
        messages={modeMessages}
        readOnly={readOnly}
        testId="library-access-mode"
      />
      {form.values.mode === 'ALLOW_LIST' &&
        (libraries.known ? (
          <MultiSelect
            {...common}
            data={libraries.options}
            placeholder={t('nodeAccess.pickPlaceholder')}
            searchable
            nothingFoundMessage={t('common:noData')}
          />
        ) : (
          <TagsInput {...common} description={t('libraryAccess.typeHelp')} />
        ))}
      {form.values.mode === 'ALLOW_LIST' && form.values.libraryIds.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="library-access-empty">
          {t('libraryAccess.emptyList')}
        </Text>
      )}
      {saveError ? <ErrorAlert error={saveError} form={form} /> : null}
    </>
  );
}
