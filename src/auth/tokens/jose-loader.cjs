'use strict';
// Hand-written CommonJS, copied unchanged into both builds (scripts/build.mjs). `jose` is ESM-only, and the
// CommonJS build is compiled with "module": "commonjs", which rewrites every `import()` into `require()`:
// a `require` of ESM fails under jest's CommonJS runtime (and on Node < 20.19). Kept out of TypeScript's
// reach, this `import()` stays a real dynamic import in both builds, and it runs only when auth.jwt is set.
exports.importJose = () => import('jose');
