/** What copying needs from the browser (injected so the choice of method can be tested). */
export interface CopyEnvironment {
  clipboard?: Pick<Clipboard, 'writeText'> | undefined;
  /** The selection-based fallback; false when the browser refused. */
  legacyCopy: (text: string) => boolean;
}

/**
 * Copies text: the asynchronous clipboard when the page has it (secure contexts only: https or localhost),
 * else a hidden textarea and `execCommand('copy')`, since the portal is often opened over plain http on a
 * LAN address. Resolves to whether it worked.
 */
export async function copyText(
  text: string,
  environment: CopyEnvironment = browserEnvironment(),
): Promise<boolean> {
  if (environment.clipboard) {
    try {
      await environment.clipboard.writeText(text);
      return true;
    } catch {
      // permission refused: try the old way
    }
  }
  try {
    return environment.legacyCopy(text);
  } catch {
    return false;
  }
}

function browserEnvironment(): CopyEnvironment {
  return {
    clipboard: window.isSecureContext ? navigator.clipboard : undefined,
    legacyCopy: (text) => {
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.style.position = 'fixed';
      area.style.opacity = '0';
      document.body.appendChild(area);
      area.select();
      try {
        return document.execCommand('copy');
      } finally {
        area.remove();
      }
    },
  };
}
