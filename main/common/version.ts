// The program's version, kept in one place (package.json is not shipped next
// to out/main when the app is packaged).
export const PILOTHOUSE_VERSION = '0.1.0';
