/** Kept equal to package.json's version (a test checks it). */
export const VERSION = '1.0.1'
/** This project's home (package.json `homepage`; a test checks it): the report links its docs by URL. */
export const PROJECT_URL = 'https://github.com/org/gpu-overhead-action'
