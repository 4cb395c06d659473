// Its own module so that the program's entry can name it without loading the settings' schemas.
export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}
