// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { useForm } from '@mantine/form';
import { libraryAccessSchema } from '@svc/contracts';
import { zodValidate } from '../../forms/zod-form.js';
import { registerMessages, setLanguage } from '../../i18n/i18n.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { LibraryAccessFormBody, type LibraryChoices } from './library-access-form-body.js';
import {
  libraryAccessFormErrors,
  libraryAccessValuesFrom,
  toLibraryAccessBody,
  type LibraryAccessValues,
} from './library-access-form.js';
import { usersMessages } from './users-messages.js';

const MOVIES = '0b6f5d1e-3f3a-4c53-9d1d-2f4f3e1a0a01';
const SHOWS = '0b6f5d1e-3f3a-4c53-9d1d-2f4f3e1a0a02';
const GONE = '0b6f5d1e-3f3a-4c53-9d1d-2f4f3e1a0a03';

beforeAll(() => {
  stubBrowserForMantine();
  registerMessages('users', usersMessages);
  setLanguage('en');
});
afterEach(cleanup);

/** The form as the user page uses it; the submitted body is written into the page for the test to read. */
function Harness({ saved, libraries }: { saved: LibraryAccessValues; libraries: LibraryChoices }) {
  const validate = zodValidate(libraryAccessSchema, toLibraryAccessBody);
  const form = useForm<LibraryAccessValues>({
    initialValues: libraryAccessValuesFrom(saved, libraries.ids),
    validate: (values) => libraryAccessFormErrors(validate(values)),
  });
  return (
    <MantineProvider>
      <form
        data-testid="form"
        onSubmit={form.onSubmit((values) => {
          document.body.setAttribute('data-sent', JSON.stringify(toLibraryAccessBody(values)));
        })}
      >
        <LibraryAccessFormBody
          form={form}
          libraries={libraries}
          saveError={null}
          modeMessages="libraryAccess"
        />
      </form>
    </MantineProvider>
  );
}

const known: LibraryChoices = {
  options: [
    { value: MOVIES, label: 'Movies' },
    { value: SHOWS, label: 'Shows' },
  ],
  known: true,
  ids: [MOVIES, SHOWS],
};

describe('the Libraries choice of a user', () => {
  it('offers all libraries or chosen ones, and hides deleted libraries of the saved list', () => {
    render(<Harness saved={{ mode: 'ALLOW_LIST', libraryIds: [SHOWS, GONE] }} libraries={known} />);
    expect(screen.getByText('Which libraries the user may browse and play')).toBeTruthy();
    // Only the existing library is shown as chosen.
    const pills = [...document.querySelectorAll('.mantine-MultiSelect-pill')].map((pill) => pill.textContent);
    expect(pills).toEqual(['Shows']);
    fireEvent.submit(screen.getByTestId('form'));
    expect(JSON.parse(document.body.dataset.sent ?? '{}')).toEqual({
      mode: 'ALLOW_LIST',
      libraryIds: [SHOWS],
    });
  });

  it('shows no list for all libraries and warns when none is chosen', () => {
    render(<Harness saved={{ mode: 'ALL', libraryIds: [] }} libraries={known} />);
    expect(screen.queryByTestId('library-access-libraries')).toBeNull();
    fireEvent.click(screen.getByTestId('library-access-mode-ALLOW_LIST'));
    expect(screen.getByTestId('library-access-libraries')).toBeTruthy();
    expect(screen.getByTestId('library-access-empty').textContent).toContain('sees no library');
    fireEvent.click(screen.getByTestId('library-access-mode-ALL'));
    fireEvent.submit(screen.getByTestId('form'));
    expect(JSON.parse(document.body.dataset.sent ?? '{}')).toEqual({ mode: 'ALL', libraryIds: [] });
  });

  it('takes typed ids when the library list cannot be read, and refuses one that is no id', () => {
    delete document.body.dataset.sent;
    const unknown: LibraryChoices = { options: [], known: false, ids: null };
    render(<Harness saved={{ mode: 'ALLOW_LIST', libraryIds: [GONE, 'not-an-id'] }} libraries={unknown} />);
    expect(screen.getByText(/Opening the library list needs the library permission/)).toBeTruthy();
    fireEvent.submit(screen.getByTestId('form'));
    expect(document.body.dataset.sent).toBeUndefined();
  });
});
