/** Kept equal to package.json's version (a test checks it). */
export const VERSION = '0.2.0'
