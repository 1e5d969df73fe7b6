/** Locations for tests; the bundled tests run from out/unit/. */
import * as path from 'node:path';

export const EXTENSION_DIR = path.resolve(__dirname, '..', '..');
export const REPO_DIR = path.resolve(EXTENSION_DIR, '..');
