'use strict';
// Hand-written CommonJS, copied unchanged into both builds (scripts/build.mjs): a synchronous `require` that
// resolves from this package in the ESM build too (code compiled to both formats cannot use `import.meta`).
// For CommonJS packages loaded on first use where the caller cannot wait (a registration, a pattern): the ESM
// build's `import` of a CommonJS package yields this same module instance, so nothing is loaded twice.
exports.requireFromLibrary = (specifier) => require(specifier);
